"""A learner's progress: the SQLite store, concept scheduling (FSRS) and statistics.

```python
from tutor.progress import ProgressStore, ConceptScheduler, Outcome
store = ProgressStore(data_dir=args.data_dir)       # check store.recovered_from and tell the learner
scheduler = ConceptScheduler(store)
scheduler.record(lesson_id=..., step_id=..., concepts=[...], answer="[4, 2]", outcome=Outcome.CORRECT)
```
"""
from tutor.progress.model import (
    QUIZ_LESSON,
    Attempt,
    LessonProgress,
    LessonStatus,
    Outcome,
    Position,
    ProgressError,
)
from tutor.progress.store import ProgressStore, gradable_step_ids

__all__ = [
    "QUIZ_LESSON",
    "Attempt",
    "LessonProgress",
    "LessonStatus",
    "Outcome",
    "Position",
    "ProgressError",
    "ProgressStore",
    "gradable_step_ids",
]
