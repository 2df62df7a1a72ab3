"""The classroom: one laptop serves the tutor to a class's browsers, and the teacher reads a report.

- `names` — a student's name, its normalised key and the folder it maps to (safe on any file system);
- `folder` — the class folder: `students/<folder>/progress.sqlite3` (the ordinary progress store, one per
  student), `student.json` (the name as typed), an optional `roster.txt`, and `class.json`;
- `server` — `autograd-tutor serve`, on textual-serve: a join page, one tutor process per browser
  connection, a class code and a cap on concurrent students;
- `student_app` — the tutor process each connection runs;
- `zygote`, `launcher` — how it starts fast: forked from one pre-imported process per server;
- `report` — the numbers of `autograd-tutor class report` and of the Class screen.
"""
