"""The course view: every lesson with its progress, grouped (bundled course, the learner's own lessons,
then each installed pack under its name), broken lesson files with where they fail, a filter."""
from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Header, Input, OptionList
from textual.widgets.option_list import Option

from tutor.i18n import t
from tutor.themes import MUTED
from tutor.untrusted import plain, text
from tutor.widgets.footer import TutorFooter
from tutor.widgets.inline_text import inline_markdown
from tutor.widgets.lesson_list import LessonList, LessonPrompt

_STATUS = {"done": ("✓", "green"), "in progress": ("◐", "yellow"), "new": ("○", MUTED)}
BROKEN = "!broken:"  # option ids of broken files (no lesson id can start with "!")


def matches(lesson, query: str) -> bool:
    """Whether a lesson's (`lessons.outline.LessonEntry`) id, title, summary (either language) or concepts
    (tag or Japanese name) contain `query`."""
    query = query.strip().casefold()
    if not query:
        return True
    haystack = [lesson.id, *lesson.concepts, *lesson.concept_names]
    for field in (lesson.title, lesson.summary):
        haystack += [field.en, field.ja or ""]
    return any(query in item.casefold() for item in haystack)


def section_heading(section, lang: str) -> str:
    """"Your lessons", or a pack's title with its name and version (`section`: `lessons.outline.OutlineSection`)."""
    if section.kind != "pack":
        return t(f"section_{section.kind}", lang)
    if section.pack_version is None or section.pack_title is None:
        name = section.pack_name if section.pack_version is None else f"{section.pack_name} {section.pack_version}"
        return t("section_pack_plain", lang, name=name)
    return t("section_pack", lang, title=section.pack_title.get(lang), name=section.pack_name, version=section.pack_version)


def _tags(lesson, lang: str) -> str:
    """A lesson's concepts as the course view shows them: the tags themselves in English (what the filter
    and quizzes name), the glossary's names in Japanese (a learner reading Japanese should not meet English tags)."""
    names = lesson.concepts if lang == "en" else lesson.concept_names
    return "  ".join(f"#{name}" for name in names)


class CourseScreen(Screen[None]):
    """Enter opens the highlighted lesson where the learner left it; `c` resumes the last one."""

    BINDINGS = [
        Binding("enter", "open", "open"),
        Binding("c", "resume", "resume"),
        Binding("r", "reset", "reset"),
        Binding("slash", "filter", "filter"),
        Binding("escape", "leave_filter", show=False),
    ]
    AUTO_FOCUS = "#lessons"  # not the filter above it: focusing it first, then the list, painted the screen twice
    _shown = False  # set on the first ScreenResume

    def compose(self) -> ComposeResult:
        yield Header()
        yield Input(id="filter")
        yield LessonList(id="lessons")
        yield TutorFooter()

    def apply_language(self) -> None:
        lang = self.app.lang
        self.sub_title = t("course_title", lang)
        self.query_one("#filter", Input).placeholder = t("filter_placeholder", lang)
        self.refresh_lessons()
        self.refresh_bindings()

    def refresh_lessons(self) -> None:
        """Rebuild the list from the app's course and progress, keeping the highlight. Headings appear
        when there is more than one group; broken files can be highlighted (Enter says what to do)."""
        lang = self.app.lang
        listing = self.query_one("#lessons", OptionList)
        highlighted = listing.highlighted_option.id if listing.highlighted_option else None
        query = self.query_one("#filter", Input).value
        outline = self.app.outline
        sections = outline.sections
        options: list[Option | None] = []
        for section in sections:
            shown = [Option(self._lesson_prompt(lesson, lang), id=lesson.id)
                     for lesson in section.lessons if matches(lesson, query)]
            if shown and len(sections) > 1:
                if options:
                    options.append(None)
                options.append(Option(text(section_heading(section, lang), "bold"), disabled=True))
            options += shown
        if not options:
            options.append(Option(Text.assemble((t("no_lessons", lang), MUTED)), disabled=True))
        if outline.broken:
            from tutor.problems import where  # (only a course with broken files needs it: not imported at start-up)

            options += [None, Option(Text.assemble((t("broken_title", lang), "bold red")), disabled=True)]
            options += [Option(Text.assemble((f"⚠ {plain(where(error.path, error.line))}", "bold red"), "\n",
                                             (t("lesson_file_problem", lang), "red"), "\n", (plain(error.path), MUTED)),
                               id=f"{BROKEN}{i}")
                        for i, error in enumerate(outline.broken)]
        listing.set_options(options)
        ids = [option.id for option in options if option is not None and option.id]
        if ids:
            listing.highlighted = listing.get_option_index(highlighted if highlighted in ids else ids[0])

    def _lesson_prompt(self, lesson, lang: str) -> LessonPrompt:
        progress = self.app.lesson_progress(lesson)
        status = str(progress.status) if progress else "new"
        mark, style = _STATUS.get(status, ("○", MUTED))
        label = t(f"status_{status.replace(' ', '_')}", lang)
        if progress and progress.total and status != "new":
            label += f" {len(progress.solved)}/{progress.total}"
        prompt = Text.assemble((f"{mark} ", style), inline_markdown(lesson.title.get(lang), "bold"), "  ", (f"[{label}]", style))
        prompt.append(f"  {t('steps_count', lang, count=len(lesson.steps))}", style=MUTED)
        prompt.append("\n")
        prompt.append_text(inline_markdown(lesson.summary.get(lang), "italic"))
        if lesson.concepts:
            prompt.append("\n")
            prompt.append_text(inline_markdown(_tags(lesson, lang), "cyan"))
        return LessonPrompt.from_rich_text(prompt)  # as the list would convert it, but with a cheaper height

    def on_input_changed(self, event: Input.Changed) -> None:
        self.refresh_lessons()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter in the filter: the one lesson it matches opens at once; with several, the list takes over."""
        lessons = self.query_one("#lessons", OptionList)
        matches = [option.id for option in lessons.options
                   if not option.disabled and option.id and not option.id.startswith(BROKEN)]
        if len(matches) == 1:
            self._open(matches[0])
        else:
            lessons.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self._open(event.option.id)

    def action_open(self) -> None:
        option = self.query_one("#lessons", OptionList).highlighted_option
        self._open(option.id if option is not None else None)

    def _open(self, option_id: str | None) -> None:
        if option_id and option_id.startswith(BROKEN):
            from tutor.problems import broken_notice

            broken = self.app.outline.broken
            number = int(option_id.removeprefix(BROKEN))
            if number < len(broken):
                self.notify(broken_notice(broken[number], self.app.lang), severity="warning")
        elif option_id:
            self.app.open_lesson(option_id)

    def action_resume(self) -> None:
        target = self.app.resume_target()
        if target is None:
            self.notify(t("resume_nothing", self.app.lang))
        else:
            self.app.open_lesson(*target)

    def action_filter(self) -> None:
        self.query_one("#filter", Input).focus()

    def action_leave_filter(self) -> None:
        search = self.query_one("#filter", Input)
        if search.has_focus and search.value:
            search.value = ""
        self.query_one("#lessons", OptionList).focus()

    def action_reset(self) -> None:
        option = self.query_one("#lessons", OptionList).highlighted_option
        lesson = self.app.lesson(option.id) if option is not None and option.id else None
        if lesson is None:
            return
        lang = self.app.lang
        title = lesson.title.get(lang)

        def reset(confirmed: bool | None) -> None:
            if confirmed:
                self.app.reset_lesson(lesson.id)
                self.notify(t("reset_done", self.app.lang, title=title))
                self.refresh_lessons()

        self.app.confirm(t("reset_confirm", lang, title=title), reset)

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        """Shown first, or back from a lesson (whose progress, or the language, may have changed). The first time,
        every widget was styled as it mounted, just before: Textual styling the whole screen again on this event
        would change nothing (this handler runs before Screen's own, which reads `refresh_styles`)."""
        if not self._shown:
            self._shown = True
            event.refresh_styles = False
        self.apply_language()

    def course_changed(self) -> None:
        self.refresh_lessons()
