"""Self-study quizzes: templates, the question generator and the session model.

```python
from tutor.quiz import QuizSession, builtin_templates, lesson_templates, generate
```
"""
from tutor.quiz.generator import Question, QuizError, Template, builtin_templates, generate, lesson_templates
from tutor.quiz.session import QuizSession, SessionSummary, Tally

__all__ = [
    "Question",
    "QuizError",
    "QuizSession",
    "SessionSummary",
    "Tally",
    "Template",
    "builtin_templates",
    "generate",
    "lesson_templates",
]
