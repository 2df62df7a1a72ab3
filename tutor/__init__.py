"""The autograd-tutor application: command line, Textual app, progress and quizzes."""
