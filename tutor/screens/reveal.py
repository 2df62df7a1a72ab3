"""Why the answer is what it is: Answer, Jacobian, VJP, Chain rule, Graph and Backprop tabs.

Every panel shows renderables made by `engine.explain` inside the sandbox worker (a confined child
process, `engine.sandbox`, bounded by the OS's time and memory limits); this screen only lays them
out. Nothing is computed on the UI thread: the numeric explanation and then the symbolic one
(sympy) are awaited in a Textual worker thread, with a progress indicator in each panel meanwhile,
so the screen answers keys at once; leaving it cancels the worker (its result is dropped).

The panels are laid out in the child for a width (a matrix that does not fit is stacked or
summarised), so a resize asks the child again for the new width, once the resizing has settled, and
only the content of each panel is replaced: the tabs, the active tab and the scroll positions stay
(recomposing the screen or the TabbedContent mid-resize races Textual's tab bookkeeping).
"""
from __future__ import annotations

import asyncio
from pathlib import Path

from rich.console import Group
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Header, LoadingIndicator, Static, TabbedContent, TabPane
from textual.worker import Worker, WorkerState, get_current_worker

from tutor.i18n import t
from tutor.themes import MUTED
from tutor.untrusted import plain, text
from tutor.widgets.backprop_stepper import BackpropStepper
from tutor.widgets.footer import TutorFooter
from tutor.widgets.markdown_text import MarkdownText

TABS = ("answer", "jacobian", "vjp", "chain", "graph", "backprop")
SYMBOLIC_SECONDS = 2.0
RELAYOUT_DELAY = 0.1  # seconds a resize must settle before the panels are laid out again


class RevealScreen(Screen[None]):
    """Opened from a step after an attempt; Esc returns to the step."""

    CSS_PATH = Path(__file__).parent.parent / "styles" / "reveal.tcss"

    BINDINGS = [
        Binding("escape", "back", "back"),
        Binding("1", "tab('answer')", "tab_answer", show=False),
        Binding("2", "tab('jacobian')", "tab_jacobian", show=False),
        Binding("3", "tab('vjp')", "tab_vjp", show=False),
        Binding("4", "tab('chain')", "tab_chain", show=False),
        Binding("5", "tab('graph')", "tab_graph", show=False),
        Binding("6", "tab('backprop')", "tab_backprop", show=False),
    ]

    def __init__(self, lesson, step, answer, source: str, initial: str = "answer") -> None:
        super().__init__()
        self.lesson = lesson
        self.step = step
        self.answer = answer
        self.source = source
        self.initial = initial
        self.explanation = None  # engine.sandbox.explanations.WorkerExplanation, numbers only
        self.problem: str | None = None  # why there is nothing to explain
        self.symbolic = None  # the same with sympy's forms, once the worker thread has it
        self.width: int | None = None  # the panel width the shown panels were laid out for
        self._relayout_timer = None
        self.explained = asyncio.Event()  # set once the numeric explanation (or why there is none) is shown
        from engine.sandbox.client import Cancel
        from engine.sandbox.explanations import explain_in_worker

        self._explain_in_worker = explain_in_worker  # imported here: worker threads importing it could deadlock
        self._new_cancel = Cancel
        self._cancel = Cancel()   # leaving (or changing language) kills the children still working for us

    def compose(self) -> ComposeResult:
        lang = self.app.lang
        yield Header()
        with TabbedContent(initial=f"tab-{self.initial}"):
            for tab in TABS:
                with TabPane(t(self._tab_label(tab), lang), id=f"tab-{tab}"):
                    yield from self._panel(tab, lang)
        yield TutorFooter()

    def _tab_label(self, tab: str) -> str:
        """The tab's label key: forward-mode calls show J·t, not vᵀJ, and step forward, op by op."""
        panels = self.explanation.panels if self.explanation is not None else []
        forward = [bool(getattr(call, "forward", False)) for call in panels]
        if tab == "vjp" and any(forward):
            return "tab_jvp" if all(forward) else "tab_vjp_jvp"
        if tab == "backprop" and forward and all(forward):
            return "tab_forward"
        return f"tab_{tab}"

    def on_mount(self) -> None:
        self.sub_title = t("reveal_title", self.app.lang, expression=self.step.expression)
        self._start()

    def _start(self) -> None:
        """Ask the worker for what is missing: the explanation, or sympy's forms for it."""
        if self.explanation is None and self.problem is None:
            self.explained.clear()
            self._explain_job(self._panel_width(), self.app.lang)
        elif self.explanation is not None and self.symbolic is None:
            self._symbolic()

    @property
    def computing(self) -> bool:
        return self.explanation is None and self.problem is None

    def _panel(self, tab: str, lang: str):
        if tab == "backprop" and self.explanation is not None:
            yield BackpropStepper(self.explanation.panels, id="stepper")
            return
        with VerticalScroll(classes="panel", id=f"panel-{tab}"):
            if tab == "answer":
                yield from self._answer_widgets(lang)
            elif self.computing:
                yield Static(Text.assemble((t("explain_running", lang), MUTED)), classes="explain-note")
                yield LoadingIndicator(classes="explain-spinner")
            elif self.problem is not None:
                yield Static(text(self.problem, "yellow"), classes="problem")
            else:
                if tab == "jacobian" and self.symbolic is None:
                    yield Static(Text.assemble((t("symbolic_running", lang), MUTED)), id="symbolic-note")
                    yield LoadingIndicator(id="symbolic-spinner")
                yield Static(self._panel_content(tab), id=f"{tab}-body")

    def _answer_widgets(self, lang: str):
        from tutor.formatting import format_value

        value = format_value(self.answer.kind, self.answer.value)
        yield Static(text(Text.assemble((f"{self.step.expression} = ", "bold"), value)), id="answer-value")
        if self.explanation is not None:
            yield Static(Group(*(call.fd for call in self.explanation.panels)), id="fd-check")
        elif self.computing:
            yield LoadingIndicator(classes="explain-spinner")
        elif self.problem is not None:
            yield Static(text(self.problem, MUTED), classes="problem")
        if self.step.explanation is not None:
            yield MarkdownText(self.step.explanation.get(lang), id="answer-explanation")

    # ------------------------------------------------------------------ explanations (sandbox worker)

    @work(thread=True, exclusive=True, group="symbolic", exit_on_error=False)
    def _explain_job(self, width: int, lang: str) -> None:
        """The numeric explanation of every backward call the step's program makes, then sympy's forms
        (a worker thread: the child runs under the OS's limits, which may take seconds)."""
        explanation = problem = None
        try:
            explanation = self._explain_in_worker(self.source, lang=lang, width=width, clean=plain,
                                                  cancel=self._cancel)
        except Exception as error:  # the worker could not start: costs the panels, not the session
            problem = t("explain_unavailable", lang, reason=f"{type(error).__name__}: {error}")
        else:
            if not explanation.ok:
                error = explanation.error
                problem = t("explain_unavailable", lang, reason=error.said(lang, introduced=True))
            elif not explanation.panels:
                problem = t("no_backward", lang)
        if problem is not None:
            explanation = None
        if get_current_worker().is_cancelled:
            return
        self.app.call_from_thread(self._explained, explanation, problem, width, lang)
        if explanation is None or get_current_worker().is_cancelled or self.explanation is not explanation:
            return
        symbolic = self._explain_again(explanation, symbolic=True, width=width)
        self.app.call_from_thread(self._symbolic_done, symbolic, explanation)

    async def _explained(self, explanation, problem, width: int, lang: str) -> None:
        """Show the explanation (or why there is none) in place of the progress indicators."""
        if not self.is_attached or lang != self.app.lang or not self.computing:
            return  # left, or the language changed (another job follows)
        self.explanation, self.problem, self.width = explanation, problem, width
        self.initial = (self.query_one(TabbedContent).active or f"tab-{self.initial}").removeprefix("tab-")
        await self.recompose()
        self.explained.set()
        if width != self._panel_width():  # resized while it was worked out
            self._relayout_soon()

    def _panel_width(self) -> int:
        """The cells a panel's content has: the screen less the tab's padding and the scroll bar."""
        return max(40, self.app.size.width - 5)

    def _panel_content(self, tab: str):
        """One tab's content for every backward call, with the symbolic forms once they exist."""
        parts = []
        for call in (self.symbolic or self.explanation).panels:
            if tab == "jacobian":
                parts += [call.summary, call.jacobian]
            else:
                parts.append(getattr(call, tab))
        return Group(*parts)

    def _explain_again(self, base, *, symbolic: bool, width: int):
        """`base` again from the child, laid out for `width` (a worker thread calls this)."""
        seconds = getattr(self.app, "symbolic_seconds", None) or SYMBOLIC_SECONDS  # injectable (tests under load)
        again = self._explain_in_worker(self.source, symbolic=symbolic, timeout=seconds, lang=self.app.lang,
                                        width=width, clean=plain, cancel=self._cancel)
        if not again.ok or len(again.panels) != len(base.panels):
            error = again.error
            raise RuntimeError(f"{error.type}: {error.message}" if error else "the program changed")
        return again

    def _symbolic(self) -> None:
        self._symbolic_job(self.explanation, self.width)

    @work(thread=True, exclusive=True, group="symbolic", exit_on_error=False)
    def _symbolic_job(self, base, width: int) -> None:
        """sympy, off the UI thread: bounded per call by the explanation layer's own timeout."""
        symbolic = self._explain_again(base, symbolic=True, width=width)
        self.app.call_from_thread(self._symbolic_done, symbolic, base)

    async def _symbolic_done(self, symbolic, base) -> None:
        if not self.is_attached or self.explanation is not base:  # left, or the panels were made again
            return
        self.symbolic = symbolic
        await self.query("#symbolic-note, #symbolic-spinner").remove()
        for tab in ("jacobian", "vjp", "chain"):
            self.query_one(f"#{tab}-body", Static).update(self._panel_content(tab))

    # ------------------------------------------------------------------ resize

    def on_resize(self) -> None:
        self._relayout_soon()

    def on_screen_resume(self) -> None:
        self._relayout_soon()  # the terminal may have been resized while another screen was on top

    def _relayout_soon(self) -> None:
        """Lay the panels out again once the resizing has settled (a drag sends many resizes)."""
        if self._relayout_timer is not None:
            self._relayout_timer.stop()
        self._relayout_timer = self.set_timer(RELAYOUT_DELAY, self._relayout)

    def _relayout(self) -> None:
        self._relayout_timer = None
        width = self._panel_width()
        if self.explanation is not None and width != self.width:
            self._relayout_job(self.explanation, width, symbolic=self.symbolic is not None)

    @work(thread=True, exclusive=True, group="relayout", exit_on_error=False)
    def _relayout_job(self, base, width: int, symbolic: bool) -> None:
        again = self._explain_again(base, symbolic=symbolic, width=width)
        self.app.call_from_thread(self._relaid, again, base, width, symbolic)

    def _relaid(self, again, base, width: int, symbolic: bool) -> None:
        """Replace each panel's content, keeping the active tab and every scroll position."""
        if not self.is_attached or self.explanation is not base or width != self._panel_width():
            return  # left, switched language, or resized again (another relayout follows)
        self.width = width
        self.explanation = again
        self.symbolic = again if symbolic else None
        if not symbolic:  # sympy's forms (done or still working) are for the old width: ask for this one
            self._symbolic()
        scrolls = {panel: panel.scroll_offset for panel in self.query(".panel").results(VerticalScroll)}
        self.query_one("#fd-check", Static).update(Group(*(call.fd for call in again.panels)))
        for tab in ("jacobian", "vjp", "chain", "graph"):
            self.query_one(f"#{tab}-body", Static).update(self._panel_content(tab))
        self.query_one("#stepper", BackpropStepper).set_calls(again.panels)
        for panel, offset in scrolls.items():
            panel.call_after_refresh(panel.scroll_to, offset.x, offset.y, animate=False)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A symbolic computation that fails only costs the symbolic form, with a note saying so."""
        if event.state == WorkerState.ERROR and event.worker.group == "symbolic" and self.is_attached:
            note = self.query("#symbolic-note")
            if note:
                reason = f"{type(event.worker.error).__name__}: {event.worker.error}"
                note.first(Static).update(text(t("symbolic_unavailable", self.app.lang, reason=reason), "yellow"))
            self.query("#symbolic-spinner").remove()

    # ------------------------------------------------------------------ actions

    def action_tab(self, tab: str) -> None:
        self.query_one(TabbedContent).active = f"tab-{tab}"

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        """The Backprop tab takes the arrow keys at once; other tabs scroll their panel."""
        pane = event.pane.id.removeprefix("tab-")
        target = self.query("#stepper") if pane == "backprop" else self.query(f"#panel-{pane}")
        if target:
            target.first().focus()

    def action_back(self) -> None:
        self.dismiss()

    def apply_language(self) -> None:
        """The panels are worded where they are made (in the sandbox child): make them again."""
        self.initial = (self.query_one(TabbedContent).active or "tab-answer").removeprefix("tab-")
        self.sub_title = t("reveal_title", self.app.lang, expression=self.step.expression)
        self.workers.cancel_group(self, "symbolic")
        self.workers.cancel_group(self, "relayout")
        self._cancel.cancel()
        self._cancel = self._new_cancel()
        self.explanation = self.symbolic = self.problem = None
        self.call_later(self._recompose_in_language)

    async def _recompose_in_language(self) -> None:
        await self.recompose()
        self._start()

    def on_unmount(self) -> None:
        """Leaving cancels what is still being worked out: the sandbox child is killed, not left to run to
        its deadline, and the worker thread's answer is dropped."""
        self._cancel.cancel()
        self.workers.cancel_node(self)
