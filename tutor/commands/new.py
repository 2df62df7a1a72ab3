"""`autograd-tutor new NAME`: write a commented template lesson that passes `check --strict` as is.

Its Japanese title, summary and credit are left for the author (the title a copy of the English, the
others `<…>` placeholders): `check --strict --require-lang ja` lists each, file:line, until written.

The file is named after the lesson id (`new "Layer Norm!"` writes `layer-norm.toml`: no space or
punctuation for a shell or another file system to trip on). It points editors at the lesson schema
by a relative path, `#:schema ./lesson.schema.json`, and puts that schema beside it: a shared lesson
carries no path of the author's machine and works in the reader's editor. It refuses a name whose id
the bundled course or the learner's lesson folder already uses (the tutor would not load a second
lesson with that id) and suggests a free one.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

import click

from tutor.commands import top_level
from tutor.i18n import t
from tutor.untrusted import echo

TEMPLATE = '''\
#:schema __SCHEMA__
# (the line above gives editors with a TOML language server — taplo, Even Better TOML —
#  completion and errors while you type; autograd-tutor itself ignores it)
# A lesson for autograd-tutor. The full guide is docs/authoring.md;
# check this file with:  autograd-tutor check __FILE__
format_version = 1                 # the lesson format this file is written in
id = "__ID__"                      # lowercase letters, digits and '-'; unique across the course
order = 1000                       # where it goes in the course (bundled lessons use 10, 20, 30…)
title = { en = "__TITLE__", ja = "__TITLE__" }
summary = { en = "One sentence on what the learner will understand.", ja = "<学習者が理解できるようになることを一文で>" }
concepts = ["chain-rule"]          # tags for quizzes and progress
source = { en = "Written by <you>", ja = "作成：<あなた>" }   # credit, shown on the first screen: the article or book it is based on

# Text fields are Markdown: a plain string (English only) or { en = "…", ja = "…" }.
# Each [[steps]] is one screen. `kind` is read, predict, error or choice.

[[steps]]
id = "setup"
kind = "read"
text.en = """
# A small function

We square `x` and sum the result. Run the snippet to see `y`.
"""
text.ja = """
# 小さな関数

`x` を 2 乗して和を取ります。スニペットを実行して `y` を見てみましょう。
"""
snippet = """
import torch
x = torch.tensor([1., 2., 3.], requires_grad=True)
y = (x ** 2).sum()
print(y)
"""

[[steps]]
id = "predict-grad"
kind = "predict"
continues = true                   # run the previous step's program first, like the next notebook cell
text = { en = "After `y.backward()`, predict `x.grad`.", ja = "`y.backward()` のあと、`x.grad` を予想してください。" }
snippet = "y.backward()"
expression = "x.grad"              # the engine computes the answer from the program
expect = "2 * x"                   # optional: your intent; check fails if the engine disagrees
hints = [
  { en = "Differentiate each term x_i ** 2 on its own.", ja = "各項 x_i ** 2 を別々に微分しましょう。" },
  { en = "d(x_i ** 2)/dx_i = 2 x_i.", ja = "d(x_i ** 2)/dx_i = 2 x_i です。" },
]
explanation = { en = "Each `x_i` appears only in its own term, so `x.grad = 2 * x = [2, 4, 6]`.", ja = "各 `x_i` は自分の項にしか現れないので `x.grad = 2 * x = [2, 4, 6]` です。" }

[[steps]]
id = "non-scalar"
kind = "error"                     # the learner predicts whether the snippet raises, and which error
text = { en = "What happens when we call `backward()` on a vector?", ja = "ベクトルに対して `backward()` を呼ぶとどうなるでしょうか？" }
snippet = """
import torch
x = torch.tensor([1., 2., 3.], requires_grad=True)
(x ** 2).backward()
"""
[[steps.choices]]
error = "RuntimeError: grad can be implicitly created only for scalar outputs"
why = { en = "`backward()` without an argument needs an output of one element; `x ** 2` has three.", ja = "引数なしの `backward()` には要素が 1 個の出力が必要です。`x ** 2` には要素が 3 個あります。" }
[[steps.choices]]
error = "none"                     # "none" means: the snippet runs without error
why = { en = "It would need to know how to weight the three outputs.", ja = "3 つの出力をどう重み付けするかが必要になります。" }

[[steps]]
id = "why-scalar"
kind = "choice"                    # a conceptual question; exactly one option is correct
text = { en = "Why does a scalar loss need no argument to `backward()`?", ja = "スカラーの損失では、なぜ `backward()` に引数が要らないのでしょうか？" }
[[steps.options]]
text = { en = "Its gradient with respect to itself is 1.", ja = "自分自身に対する勾配は 1 だからです。" }
correct = true
why = { en = "PyTorch starts the backward pass from 1.", ja = "PyTorch は 1 から逆伝播を始めます。" }
[[steps.options]]
text = { en = "Scalars have no gradient.", ja = "スカラーには勾配がないからです。" }
why = { en = "They do: the gradient flows from them to the inputs.", ja = "あります。勾配はそこから入力へ流れます。" }

# Optional quiz templates: the same question with fresh numbers. {name} is replaced
# by a generated literal; write {{ and }} for literal braces.
[[quiz]]
id = "square-sum"
text = { en = "Predict `x.grad`.", ja = "`x.grad` を予想してください。" }
snippet = """
import torch
x = torch.tensor({x}, requires_grad=True)
(x ** 2 * {c}).sum().backward()
"""
expression = "x.grad"
[quiz.params]
x = { kind = "tensor", shapes = [[3], [2, 2]], low = -3, high = 3, integers = true }
c = { kind = "int", low = 1, high = 4 }
'''


def slug(name: str) -> str:
    """A lesson id from a name: lowercase letters, digits and single dashes."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


@click.command("new")
@click.argument("name")
@click.option("--dir", "folder", type=click.Path(file_okay=False, path_type=Path),
              help="Folder to write into (default: your lesson folder, see `autograd-tutor paths`).")
@click.pass_context
def command(ctx: click.Context, name: str, folder: Path | None) -> None:
    """Write NAME.toml, a commented template lesson that passes `check` as is."""
    lang = top_level.language(ctx)
    lesson_id = slug(Path(name.removesuffix(".toml")).name)
    if not lesson_id:
        from tutor.commands.snippet_file import usage

        usage("new", t("new_no_id", lang, name=repr(name)))
    from tutor.paths import lessons_dir

    user_dir = lessons_dir(top_level.given(ctx, "data_dir"))
    if folder is None:
        folder = user_dir
    path = folder / f"{lesson_id}.toml"
    from lessons.ids import free_id, taken_ids

    taken = taken_ids(user_dir)
    if folder.resolve() != user_dir.resolve() and folder.is_dir():
        taken.update(taken_ids(None) | _ids_in(folder))
    if lesson_id in taken and not path.exists():
        other, where = taken[lesson_id]
        suggestion = free_id(lesson_id, taken)
        echo(t("new_id_taken", lang, id=lesson_id, other=other, where=where, suggestion=suggestion), err=True)
        sys.exit(1)
    if path.exists():
        echo(t("new_exists", lang, path=path), err=True)
        sys.exit(1)
    from lessons.spec import SCHEMA_PATH

    text = TEMPLATE.replace("__SCHEMA__", f"./{SCHEMA_PATH.name}").replace("__ID__", lesson_id).replace(
        "__TITLE__", lesson_id.replace("-", " ").capitalize())
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "x", encoding="utf-8") as file:
            file.write(text.replace("__FILE__", str(path)))
        schema = path.parent / SCHEMA_PATH.name
        if not schema.exists() or schema.read_bytes() != SCHEMA_PATH.read_bytes():
            from lessons.atomic_file import write_atomically

            write_atomically(schema, SCHEMA_PATH.read_text(encoding="utf-8"))
    except OSError as error:
        echo(t("cli_cannot_write", lang, path=path, reason=error.strerror or error), err=True)
        sys.exit(1)
    echo(t("new_written", lang, path=path, id=lesson_id))


def _ids_in(folder: Path) -> dict:
    from lessons.folders import lesson_files
    from lessons.loader import read_lesson

    found = {}
    for path in lesson_files(folder):
        lesson, _ = read_lesson(path)
        if lesson is not None:
            found.setdefault(lesson.id, (path, str(folder)))
    return found
