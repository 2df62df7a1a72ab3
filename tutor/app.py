"""The Textual app that `autograd-tutor` opens.

`TutorApp` owns what every screen shares: the course (reloaded when a lesson file changes on
disk), the progress store, the language and the theme. Screens ask it to open lessons and to
record attempts; they never touch files or the database themselves. Heavy modules (numpy, the
runner, the explanation layer) are imported by the screens that need them, not here, so the
course view appears as fast as a bare Textual app.
"""
from __future__ import annotations

import atexit
import dataclasses
import gc
import os
import sys
import threading
from collections.abc import Iterable
from pathlib import Path

from textual import events
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.reactive import reactive
from textual.screen import Screen

from tutor.i18n import default_language, error_said, t
from tutor.paths import cache_dir, lessons_dir
from tutor.untrusted import TerminalWall, plain

STYLES = Path(__file__).parent / "styles"
POLL_SECONDS = 1.0
COURSE_LOAD_SECONDS = 0.3  # after the course view is drawn from the saved outline, the lessons load
COLLECTOR_PAUSE_SECONDS = 0.5  # how long after mounting the cyclic garbage collector waits (see on_load)


class TutorApp(App[None]):
    """Course view first; lessons, explanations, help and dialogs are pushed on top."""

    # The lesson and explanation screens bring their own styles when first shown (faster start-up).
    CSS_PATH = [STYLES / name for name in ("app.tcss", "course.tcss")]
    TITLE = "autograd-tutor"
    # At 80 columns the footer keeps the screen's own keys, help and quit; the rest are in help
    # (F1) and the command palette. Ctrl+Q has priority: it quits from dialogs and the palette too.
    BINDINGS = [
        Binding("f1", "help", "help"),
        Binding("question_mark", "help", "help", show=False),
        Binding("f2", "toggle_language", "language", show=False),
        Binding("f3", "toggle_theme", "theme", show=False),
        Binding("f4", "quiz", "quiz", show=False),
        Binding("f5", "stats", "stats", show=False),
        Binding("ctrl+q", "quit", "quit", priority=True),
    ]

    lang: reactive[str] = reactive("en", init=False)

    def __init__(
        self,
        lang: str | None = None,
        extra_dirs: Iterable[str | os.PathLike[str]] = (),
        data_dir: str | os.PathLike[str] | None = None,
        theme: str | None = None,
        start: str = "course",
        include_bundled: bool = True,
        quiz_seed: int | None = None,
        quiz_count: int = 10,
        trust_lessons: bool = False,
        symbolic_seconds: float | None = None,
        open_at: tuple[str, str | None] | None = None,
    ) -> None:
        # a quiz or a lesson opened at start-up brings the step view's styles with the app's own: parsed with them,
        # rather than every stylesheet parsed again when its screen is pushed (the lesson screens' CSS_PATH)
        first_screen = ["lesson.tcss"] if start == "quiz" or open_at is not None else []
        super().__init__(css_path=[*self.CSS_PATH, *(STYLES / name for name in first_screen)])
        from tutor.config import config_path, load_settings
        from tutor.themes import ANSI_DARK, ANSI_LIGHT, THEMES, NoDim
        from tutor.widgets.japanese_wrap import install

        install()  # Japanese text breaks between characters (rich and Textual break at spaces only)

        self.data_dir = data_dir
        self.config_path = config_path(data_dir)
        self.settings = load_settings(self.config_path)  # language and theme chosen last time
        self.learner_seed = self.settings.learner_seed  # orders each learner's choices, stably
        self.set_reactive(TutorApp.lang, lang or self.settings.lang or default_language())
        self.extra_dirs = tuple(Path(d) for d in extra_dirs)
        for registered in THEMES.values():  # the app's own colours: every text at 4.5:1 (tutor/themes.py)
            self.register_theme(registered)
        # (set without their watchers: each queues a re-parse of every stylesheet; _start_with_theme applies them)
        self.set_reactive(App.ansi_theme_dark, ANSI_DARK)
        self.set_reactive(App.ansi_theme_light, ANSI_LIGHT)
        theme = theme or self.settings.theme or "dark"
        self._start_with_theme(THEMES[theme].name if theme in THEMES else theme)
        self.start = start
        if start == "quiz":  # its first question needs the snippet worker at once: start it while Textual starts
            from tutor import worker_start

            worker_start.start()
        self.quiz_seed = quiz_seed  # `autograd-tutor quiz --seed N --count N`
        self.quiz_count = quiz_count
        self.include_bundled = include_bundled  # tests load only their fixture folders
        self.symbolic_seconds = symbolic_seconds  # wall-clock limit of the symbolic forms (None: the default)
        self.trust_lessons = trust_lessons  # run lessons from outside the bundled course even unconfined
        self.bundled_only = False  # set when the sandbox cannot confine snippets here (see _warm_up)
        self.confinement = None  # engine.sandbox.Confinement, once the worker has started
        self.class_dir = None  # `autograd-tutor class view`: the class folder the Class screen reads
        self._course = None  # loaded on first use: start-up draws the course view from `outline`
        self.outline = None  # lessons.outline.Outline: what the course view lists
        self._saved_outline = None  # (fingerprint, outline) in the cache, to write it only when it changed
        self.store = None
        self._told_shadows: set[str] = set()
        self._collector_paused = False
        self._lesson_files: dict[Path, int] = {}
        self._ids_by_path: dict[Path, str] = {}  # the id each lesson file had when it last loaded
        self.open_at = open_at  # `--open LESSON[:STEP]`: (lesson id, step id or None), checked by the CLI
        self._wall = TerminalWall()
        self._no_dim = NoDim()

    def get_css_variables(self) -> dict[str, str]:
        """The theme's colours as CSS variables, once the first theme is chosen (`_start_with_theme`). Textual's
        `App.__init__` asks first, for its own default theme, which the tutor never shows: the variables it would
        generate from that theme (about 0.6% of start-up) are skipped, and nothing is parsed with them."""
        return super().get_css_variables() if self._theme_chosen else {}

    _theme_chosen = False

    def _start_with_theme(self, name: str) -> None:
        """Set the first theme as Textual's theme watcher would, but without the full re-parse of every
        stylesheet it queues (about 4 ms of start-up, CPU): nothing is styled or parsed yet, so the stylesheet
        takes the theme's variables now and is parsed once, with them. The mode classes and the ANSI colours
        follow the theme as the watcher sets them. A theme not registered goes through the watcher (and its error)."""
        self._theme_chosen = True
        if self.get_theme(name) is None:
            self.theme = name
            return
        self.set_reactive(App.theme, name)
        dark = self.current_theme.dark
        self.set_class(dark, "-dark-mode", update=False)
        self.set_class(not dark, "-light-mode", update=False)
        self.add_class(f"-theme-{name}", update=False)
        self._refresh_truecolor_filter(self.ansi_theme)
        self.stylesheet.set_variables(self.get_css_variables())

    def get_driver_class(self):
        """Textual's driver for this terminal; on Linux and macOS one that keeps a paste whole when it carries escape
        sequences (`tutor.paste_guard`), unless this Textual has moved the private parser the guard is built on:
        then the plain driver (pastes with escape sequences arrive in pieces, as without the guard; the app starts)."""
        driver = super().get_driver_class()
        from textual.drivers.linux_driver import LinuxDriver

        if driver is not LinuxDriver:
            return driver
        try:
            from tutor.paste_guard import PasteCleaningDriver
        except ImportError:
            return driver
        return PasteCleaningDriver

    def run_and_exit(self, **options) -> None:
        """`run` until the learner quits, then end the process at once (the commands that open the app call
        this). By then the progress store is closed (`on_unmount`) and the settings were saved when they
        changed; what Python would still do is run the exit handlers (they end the snippet worker: run here, as
        it would) and tear down the ~600 modules loaded, which took 0.5–1 s of a quit on a loaded machine
        (`benchmarks/startup.py`)."""
        self.run(**options)
        if self.return_code is None:  # the app did not run (Textual has said why): Python's own exit
            return
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        atexit._run_exitfuncs()  # the handlers Python runs at exit, without its teardown
        os._exit(self.return_code)

    # ------------------------------------------------------------------ the terminal boundary (tutor.untrusted)

    def get_line_filters(self):
        """Dim text at full contrast (tutor/themes.py), Textual's filters, then the last wall: no control
        character or hyperlink leaves a rendered line."""
        return [self._no_dim, *super().get_line_filters(), self._wall]

    def notify(self, message: str, *, title: str = "", severity="information", timeout: float | None = None,
               markup: bool = False) -> None:
        """Every notification (screens and widgets call this one) as plain text: messages carry lesson titles,
        file names and error messages, so none is parsed as markup (`markup` is accepted and ignored)."""
        super().notify(plain(message), title=plain(title), severity=severity, timeout=timeout, markup=False)

    def format_title(self, title: str, sub_title: str):
        """The header's title and subtitle (a lesson's title, a step's expression), cleaned."""
        return super().format_title(plain(title), plain(sub_title))

    # ------------------------------------------------------------------ start-up

    def on_load(self) -> None:
        """Pause the cyclic garbage collector until the course view is on screen: start-up allocates
        the course and every widget, which triggered a full collection (about 10 ms, scanning
        everything imported) in the middle of the first paint. It resumes half a second later,
        when the learner is reading, and collects as usual from then on."""
        self._collector_paused = gc.isenabled()
        gc.disable()

    def _resume_collector(self) -> None:
        if self._collector_paused:
            self._collector_paused = False
            gc.enable()

    def get_default_screen(self) -> Screen:
        """The app's first screen is the course view, with the outline it lists and the store its progress comes
        from (Textual asks for it as the app starts, before `on_mount`; every other screen is pushed over it). Not
        a course view pushed over Textual's blank default screen: that screen's mount, layout and frame were about
        7 ms of start-up (CPU), for a screen no learner sees."""
        from tutor.screens.course import CourseScreen

        self.outline = self._cached_outline()
        if self.outline is None:
            self._ensure_course()
        self._open_store()
        return CourseScreen()

    def on_mount(self) -> None:
        self.set_interval(POLL_SECONDS, self.poll_lesson_files)
        self.set_timer(COLLECTOR_PAUSE_SECONDS, self._resume_collector)
        if self.start == "quiz":  # the warm-up runs while the first question is made, not after it
            self._start_warm_up()
        if self.open_at is not None:  # an author's preview: the lesson at once, the course underneath
            self.open_lesson(*self.open_at)
        elif self.start == "quiz":
            self.open_quiz()
        elif self.start == "resume":  # a classroom student coming back: where they left off
            self._resume()
        elif self.start == "class":
            self.open_class()
        self._check_size(self.size.width, self.size.height)
        self.call_later(lambda: self.screen.call_after_refresh(self._after_first_paint))

    def _after_first_paint(self) -> None:
        """The first screen is painted: only now the lessons load (COURSE_LOAD_SECONDS later) and the worker
        starts. On a loaded machine the first paint can take longer than that delay, and the lessons' loading
        or the worker's imports (numpy) then delayed it."""
        self.set_timer(COURSE_LOAD_SECONDS, self._ensure_course)
        if self.start != "quiz":
            self._start_warm_up()

    def _start_warm_up(self) -> None:
        """Start the sandbox worker (and compile the code highlighter's patterns) while the learner reads the
        course list, or while a quiz makes its first question, so the first lesson opens at once (the worker
        imports numpy, sympy and the engine: about a second). A daemon thread, not a Textual thread
        worker: quitting must not wait for it (Python joins executor threads at exit)."""
        threading.Thread(target=self._warm_up, name="warm-up", daemon=True).start()

    def _warm_up(self) -> None:
        from tutor.widgets.snippet_cell import warm_highlighter

        warm_highlighter()
        import lessons.answers  # noqa: F401
        from engine.sandbox import worker

        confinement = worker().confinement()
        if not self.is_running:  # the learner quit meanwhile (quitting ends the worker: it "could not start")
            return
        if not confinement.started:  # the tutor's own problem: no lesson is at fault, no sandbox to skip
            self._from_warm_up(self.notify, t("worker_failed", self.lang, reason=confinement.reason),
                               severity="error", timeout=30)
        elif not confinement.confined and not self.trust_lessons:
            self._from_warm_up(self._restrict_to_bundled, confinement.reason)
        self.confinement = confinement

    def _from_warm_up(self, callback, *args, **kwargs) -> None:
        """`call_from_thread`, unless the app closed meanwhile (its loop is gone: nothing to tell)."""
        try:
            self.call_from_thread(callback, *args, **kwargs)
        except RuntimeError:
            pass

    def _restrict_to_bundled(self, reason: str) -> None:
        """No OS sandbox here: only the bundled course runs, unless the learner passed --trust-lessons."""
        self.bundled_only = True
        self._load_course()
        self.notify(t("sandbox_unconfined", self.lang, reason=reason), severity="warning", timeout=20)
        self._tell_screens()

    @property
    def course(self):
        """Every lesson, loaded and checked; loaded on first use when start-up drew the course view from
        its saved outline (then just after the first screen, or sooner if a lesson is opened). A worker
        thread asking first has it loaded on the app's thread, which alone touches the store and screens."""
        if self._course is None:
            if threading.current_thread() is threading.main_thread():
                self._ensure_course()
            else:
                self.call_from_thread(self._ensure_course)
        return self._course

    def _ensure_course(self) -> None:
        """Load the course if it is not yet; the screens hear of it only if the course view changes."""
        if self._course is None:
            shown = self.outline
            self._load_course()
            if self.outline != shown:  # the saved outline was stale (a file changed as the app started)
                self._tell_screens()

    def _course_key(self) -> str:
        from lessons.outline import fingerprint

        return fingerprint(self._lesson_folders())

    def _cached_outline(self):
        from lessons.outline import read_outline

        key = self._course_key()
        outline = read_outline(cache_dir(self.data_dir) / "outline.json", key)
        self._saved_outline = (key, outline)
        return outline

    def _load_course(self) -> dict[Path, tuple[str, str]]:
        """Load every lesson, note their files (for `poll_lesson_files`) and ids, and save the outline
        for the next start. Returns the lessons renamed since the last load (`_carry_renamed_progress`)."""
        from lessons.course import load_course
        from lessons.folders import is_bundled
        from lessons.outline import outline_of, quiz_part, write_outline, write_quiz

        key = self._course_key()  # before reading: a file changed meanwhile gives the next start another key
        self._lesson_files = self._scan_lesson_files()
        course = load_course(self.extra_dirs, user_dir=lessons_dir(self.data_dir),
                             include_bundled=self.include_bundled, cache_path=cache_dir(self.data_dir) / "lessons.json")
        if self.bundled_only:
            course = dataclasses.replace(course, lessons=[l for l in course.lessons if is_bundled(l.path)])
        self._course = course
        for shadow in course.shadowed:  # an author previewing a pack's source: said once per pack
            if shadow.name not in self._told_shadows:
                self._told_shadows.add(shadow.name)
                self.notify(t("pack_shadowed", self.lang, source=shadow.source, name=shadow.name,
                              installed=shadow.installed), timeout=10, markup=False)
        outline = outline_of(course)
        # (a course restricted to the bundled lessons is not saved: every start shows the whole course first)
        if not self.bundled_only and self._saved_outline != (key, outline):
            write_outline(cache_dir(self.data_dir) / "outline.json", key, outline)
            write_quiz(cache_dir(self.data_dir) / "quiz.json", key, quiz_part(course))
            self._saved_outline = (key, outline)
        self.outline = outline
        return self._carry_renamed_progress()

    def _open_store(self) -> None:
        from tutor.progress.model import ProgressError
        from tutor.progress.store import ProgressStore

        self._skipped_told = 0
        try:
            self.store = ProgressStore(data_dir=self.data_dir)
        except ProgressError as error:
            self.notify(t("progress_unavailable", self.lang, reason=error_said(error, self.lang)), severity="error", timeout=10)
            return
        if self.store.recovered_from is not None:
            self.notify(t("progress_salvaged", self.lang, count=self.store.salvaged["attempts"],
                          path=self.store.recovered_from), severity="warning", timeout=15, markup=False)

    def on_unmount(self) -> None:
        self._resume_collector()
        if self.store is not None:
            self.store.close()

    # ------------------------------------------------------------------ lessons

    def lesson(self, lesson_id: str):
        return next((lesson for lesson in self.course.lessons if lesson.id == lesson_id), None)

    def lesson_at(self, path):
        """The lesson loaded from file `path` now (its id may have changed), or None."""
        return next((lesson for lesson in self.course.lessons if lesson.path == path), None)

    def broken_error(self, path):
        """Why the lesson file `path` did not load, or None when it did (or is gone)."""
        return next((error for error in self.course.broken if Path(error.path) == path), None)

    def open_lesson(self, lesson_id: str, step_id: str | None = None) -> None:
        from tutor.screens.lesson import LessonScreen

        lesson = self.lesson(lesson_id)
        if lesson is None:
            return
        if step_id is None and self.store is not None:
            step_id = self.with_store(lambda store: store.position(lesson_id))
        index = next((i for i, step in enumerate(lesson.steps) if step.id == step_id), 0)
        self.push_screen(LessonScreen(lesson, index))

    def open_quiz(self, *, seed: int | None = None, count: int | None = None, now=None) -> None:
        """Push a quiz of `count` questions (reproducible with `seed`), or say why it cannot start (the screen says
        it when its first question cannot be made)."""
        from tutor.progress.model import utc_now
        from tutor.progress.scheduler import ConceptScheduler
        from tutor.quiz import QuizError, QuizSession, builtin_templates, lesson_templates
        from tutor.screens.quiz import QuizScreen

        if self.store is None:
            self.notify(t("quiz_unavailable", self.lang, reason=t("quiz_no_store", self.lang)), severity="error", timeout=10)
            return
        seed = self.quiz_seed if seed is None else seed
        count = self.quiz_count if count is None else count
        scheduler = ConceptScheduler(self.store, now=now or utc_now)
        templates = builtin_templates() + lesson_templates(self._quiz_lessons())
        try:  # the screen makes the first question once the worker answers (see tutor.worker_start)
            screen = QuizScreen(QuizSession(scheduler, templates, count=count, seed=seed), self.learner_seed)
        except (QuizError, ValueError) as error:
            self.notify(t("quiz_unavailable", self.lang, reason=error_said(error, self.lang)), severity="error", timeout=10)
            return
        self.push_screen(screen)

    def _quiz_lessons(self):
        """The lessons a quiz draws templates from: the course's or, not loaded yet (a quiz opened at start-up),
        their quiz templates as saved beside the outline the course view came from, so that the first question
        needs no lesson loaded (none saved, or unreadable: the lessons load)."""
        from lessons.folders import is_bundled
        from lessons.outline import read_quiz

        if self._course is None and self._saved_outline is not None and self._saved_outline[1] is not None:
            lessons = read_quiz(cache_dir(self.data_dir) / "quiz.json", self._saved_outline[0])
            if lessons is not None:
                return [lesson for lesson in lessons if not self.bundled_only or is_bundled(lesson.path)]
        return self.course.lessons if self.course else ()

    def show_quiz_summary(self, session) -> None:
        """The quiz is over: its summary replaces it."""
        from tutor.screens.quiz_summary import QuizSummaryScreen

        self.switch_screen(QuizSummaryScreen(session.summary(), count=session.count, now=session.scheduler.now))

    def open_stats(self, *, now=None, replace: bool = False) -> None:
        from tutor.screens.stats import StatsScreen

        screen = StatsScreen(now=now)
        if replace:
            self.switch_screen(screen)
        else:
            self.push_screen(screen)

    def open_explanation(self, lesson, step, answer, source: str) -> None:
        """The reveal screen for a finished predict step."""
        from tutor.screens.reveal import RevealScreen

        self.push_screen(RevealScreen(lesson, step, answer, source))

    def confirm(self, question: str, callback) -> None:
        """Ask a yes/no question over the current screen; `callback(True)` on yes."""
        from tutor.screens.confirm import ConfirmScreen

        self.push_screen(ConfirmScreen(question), callback)

    def action_quiz(self) -> None:
        from tutor.screens.quiz import QuizScreen

        if not isinstance(self.screen, QuizScreen):
            self.open_quiz()

    def _resume(self) -> None:
        target = self.resume_target()
        if target is not None:
            self.open_lesson(*target)

    def resume_target(self) -> tuple[str, str | None] | None:
        """Where `c` (and a returning student) continues: the last lesson at its step or, that lesson being
        done, the next lesson of the course not done yet, where it was left (None: nothing to resume)."""
        position = self.last_position()
        if position is None:
            return None
        if not self._is_done(self.lesson(position.lesson_id)):
            return position.lesson_id, position.step_id
        order = [lesson.id for lesson in self.course.lessons]
        start = order.index(position.lesson_id) + 1 if position.lesson_id in order else 0
        following = (self.lesson(lesson_id) for lesson_id in order[start:] + order[:start])
        return next(((lesson.id, None) for lesson in following if not self._is_done(lesson)), None)

    def _is_done(self, lesson) -> bool:
        progress = self.lesson_progress(lesson)
        return progress is not None and str(progress.status) == "done"

    def open_class(self) -> None:
        """The teacher's Class screen (only when the app was opened on a class folder)."""
        from tutor.screens.class_screen import ClassScreen

        if self.class_dir is not None and not isinstance(self.screen, ClassScreen):
            self.push_screen(ClassScreen(self.class_dir))

    def action_stats(self) -> None:
        from tutor.screens.stats import StatsScreen

        if not isinstance(self.screen, StatsScreen):
            self.open_stats()

    def _lesson_folders(self) -> list[Path]:
        from lessons.folders import bundled_dir

        bundled = [bundled_dir()] if self.include_bundled else []
        return [*bundled, lessons_dir(self.data_dir), *self.extra_dirs]

    def _scan_lesson_files(self) -> dict[Path, int]:
        from lessons.folders import lesson_files

        files = {}
        for folder in self._lesson_folders():
            if not folder.is_dir():
                continue
            for path in lesson_files(folder):
                try:
                    files[path] = path.stat().st_mtime_ns
                except OSError:
                    continue
        return files

    def poll_lesson_files(self) -> None:
        """Reload the course when a lesson file is added, removed or edited, and say what happened."""
        from tutor.problems import broken_notice

        if self._course is None:
            return  # the first load, just after start-up, notes the files
        files = self._scan_lesson_files()
        if files == self._lesson_files:
            return
        changed = {path for path in files.keys() | self._lesson_files.keys() if files.get(path) != self._lesson_files.get(path)}
        renamed = self._load_course()
        for path in sorted(changed):
            error = self.broken_error(path)
            if error is not None:
                self.notify(broken_notice(error, self.lang), severity="error", timeout=10)
            elif path in renamed:
                old, new = renamed[path]
                self.notify(t("lesson_renamed", self.lang, path=path.name, old=old, new=new), timeout=10)
            elif path in files:
                self.notify(t("lesson_reloaded", self.lang, path=path.name))
        self._tell_screens()

    def _carry_renamed_progress(self) -> dict[Path, tuple[str, str]]:
        """A lesson file that loads with another id than it last had (and nothing else took the old id)
        was renamed by its author: its progress moves to the new id. Returns path -> (old id, new id)."""
        renamed = {}
        current = {lesson.id for lesson in self.course.lessons}
        for lesson in self.course.lessons:
            old = self._ids_by_path.get(lesson.path)
            if old is not None and old != lesson.id and old not in current:
                self.with_store(lambda store, old=old, new=lesson.id: store.rename_lesson(old, new))
                renamed[lesson.path] = (old, lesson.id)
            self._ids_by_path[lesson.path] = lesson.id
        for path in [path for path in self._ids_by_path if path not in self._lesson_files]:
            del self._ids_by_path[path]  # a deleted file: a new one there later is another lesson
        return renamed

    def _tell_screens(self) -> None:
        for screen in self.screen_stack:
            if hasattr(screen, "course_changed"):
                screen.course_changed()

    # ------------------------------------------------------------------ progress

    def with_store(self, read, default=None):
        """`read(store)` on the progress store (`default` without one); a store that fails is reported and
        `default` returned, so a screen never handles the store's errors itself."""
        from tutor.progress.model import ProgressError

        if self.store is None:
            return default
        try:
            return read(self.store)
        except ProgressError as error:
            self.notify(t("progress_unavailable", self.lang, reason=error_said(error, self.lang)), severity="error", timeout=10)
            return default
        finally:
            if len(self.store.skipped) > self._skipped_told:  # rows with a malformed value: told once each
                self._skipped_told = len(self.store.skipped)
                self.notify(t("progress_rows_skipped", self.lang, count=self._skipped_told), severity="warning",
                            timeout=10)

    def lesson_progress(self, lesson):
        from tutor.progress.store import gradable_step_ids

        return self.with_store(lambda store: store.lesson_progress(lesson.id, gradable_step_ids(lesson.steps)))

    def last_position(self):
        position = self.with_store(lambda store: store.last_position())
        return position if position is not None and self.lesson(position.lesson_id) else None

    def reset_lesson(self, lesson_id: str) -> None:
        self.with_store(lambda store: store.reset_lesson(lesson_id))

    def save_position(self, lesson_id: str, step_id: str) -> None:
        self.with_store(lambda store: store.save_position(lesson_id, step_id))

    def record_attempt(self, **attempt) -> None:
        """Record a lesson attempt and review its concepts' FSRS cards (one transaction), as quizzes do."""
        from tutor.progress.scheduler import ConceptScheduler

        self.with_store(lambda store: ConceptScheduler(store).record(**attempt))

    def attempts(self, lesson_id: str) -> list:
        return self.with_store(lambda store: store.attempts(lesson_id), [])

    # ------------------------------------------------------------------ language, theme, help

    def watch_lang(self) -> None:
        for screen in self.screen_stack:
            if hasattr(screen, "apply_language"):
                screen.apply_language()
        self.screen.refresh_bindings()

    def action_toggle_language(self) -> None:
        self.lang = "ja" if self.lang == "en" else "en"
        self._save_settings()

    def action_toggle_theme(self) -> None:
        from tutor.themes import THEMES

        self.theme = THEMES["light" if self.current_theme.dark else "dark"].name
        self._save_settings()

    def _save_settings(self) -> None:
        """Language and theme are remembered for the next start (config.json)."""
        from tutor.config import save_settings

        self.settings.lang = self.lang
        self.settings.theme = "dark" if self.current_theme.dark else "light"
        save_settings(self.config_path, self.settings)

    def action_help(self) -> None:
        from tutor.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """Every key of the current screen, plus the app's own, in the learner's language."""
        from tutor.widgets.footer import declared_bindings

        lang = self.lang
        yield SystemCommand(t("language", lang), t("cmd_language_help", lang), self.action_toggle_language)
        yield SystemCommand(t("theme", lang), t("cmd_theme_help", lang), self.action_toggle_theme)
        yield SystemCommand(t("help", lang), t("cmd_help_help", lang), self.action_help)
        yield SystemCommand(t("quiz", lang), t("cmd_quiz_help", lang), self.action_quiz)
        yield SystemCommand(t("stats", lang), t("cmd_stats_help", lang), self.action_stats)
        if self.class_dir is not None:
            yield SystemCommand(t("class_title", lang), t("cmd_class_help", lang), self.open_class)
        yield SystemCommand(t("quit", lang), t("cmd_quit_help", lang), self.action_quit)
        seen = {"help", "toggle_language", "toggle_theme", "quiz", "stats", "quit", "command_palette"}
        # The screen's own keys, also those a focused editor keeps for typing (the palette runs them).
        for binding in declared_bindings(screen):
            if not binding.description or binding.action in seen or screen.check_action(binding.action, ()) is not True:
                continue
            seen.add(binding.action)
            title = t(binding.description, lang)
            help_text = f"{self.get_key_display(binding)}: {title}"
            yield SystemCommand(title, help_text, lambda node=screen, action=binding.action: self.run_action(action, node))
        for node, binding, enabled, _tooltip in screen.active_bindings.values():
            if binding.description and enabled and binding.action not in seen and isinstance(node, Screen):
                seen.add(binding.action)
                title = t(binding.description, lang)
                help_text = f"{self.get_key_display(binding)}: {title}"
                yield SystemCommand(title, help_text, lambda node=node, action=binding.action: self.run_action(action, node))

    # ------------------------------------------------------------------ size

    def on_resize(self, event: events.Resize) -> None:
        self._check_size(event.size.width, event.size.height)

    def _check_size(self, width: int, height: int) -> None:
        """Cover the screens with the too-small notice while the terminal is below the minimum size. The notice's
        module is imported when a terminal is first too small, not at every start-up (the first size is checked
        before the first paint); until then no notice can be showing."""
        from tutor.min_size import too_small

        notice = sys.modules.get("tutor.screens.too_small")
        showing = notice is not None and isinstance(self.screen, notice.TooSmallScreen)
        if too_small(width, height) and not showing:
            from tutor.screens.too_small import TooSmallScreen

            self.push_screen(TooSmallScreen())
        elif too_small(width, height):
            self.screen.show_size(width, height)
        elif showing:
            self.pop_screen()
