"""The four common TOML slips (issue 26, item 3): `check` names the file, the line where the mistake is
(not where the parser noticed it) and the fix, in English and, with `--lang ja`, in Japanese."""
from __future__ import annotations

import pytest

HEAD = 'format_version = 1\nid = "slip"\ntitle = "Slip"\nsummary = "S"\n'

SLIPS = {
    # name: (text after the head, the line reported, English fragment, Japanese fragment)
    "unclosed_string": ('concepts = ["vjp"]\nsource = "https://example.org\n\n[[steps]]\n', 6,
                        "column 10: the string that starts here is never closed on its line: end it with \"",
                        "10 列目から始まる文字列がその行で閉じられていません"),
    "missing_comma": ('[[steps]]\nid = "a"\nkind = "read"\ntext = "t"\nhints = [\n  "one"  # the first\n\n'
                      '  "two",\n]\n', 10, "column 7: a comma is missing after this item of the array (the parser "
                      "only noticed at line 12): write `,` after it", "配列のこの要素の後ろにカンマがありません"),
    "missing_comma_one_line": ('concepts = ["vjp" "chain-rule"]\n', 5, "column 17: a comma is missing",
                               "17 列目の後ろに `,` を書いてください"),
    "key_twice": ('[[steps]]\nid = "a"\nkind = "read"\ntext = "first"\n\n# the next step\nid = "b"\n', 11,
                  "`id` is given a value twice in the same table (first on line 6): remove one of them — or, if "
                  "this line starts another step, put `[[steps]]` above it",
                  "同じテーブルの中で `id` に値が 2 回書かれています（最初は 6 行目）"),
    "key_two_ways": ('[[steps]]\nid = "a"\nkind = "read"\ntext = "first"\ntext.ja = "最初"\n', 9,
                     "`text` is written two ways, `text = …` on line 8 and `text.ja = …` here",
                     "`text` が 2 通りに書かれています"),
    "curly_double": ('source = “https://example.org”\n', 5,
                     "column 10: “ is a curly quote, which TOML does not read as a quote: write a straight \"",
                     "10 列目の “ は全角・飾りの引用符で、TOML では引用符になりません。半角の \" に書き換えてください"),
    "curly_single": ("concepts = [‘vjp’]\n", 5, "‘ is a curly quote", "半角の ' に書き換えてください"),
}


@pytest.mark.parametrize("name", sorted(SLIPS))
def test_each_slip_is_named_at_its_line_with_the_fix_in_english_and_japanese(cli, tmp_path, name):
    body, line, english, japanese = SLIPS[name]
    path = tmp_path / f"{name}.toml"
    path.write_text(HEAD + body, encoding="utf-8")
    result = cli("--lang", "en", "check", path)
    assert result.exit_code == 1 and f"{path}:{line}: TOML syntax error" in result.output, result.output
    assert english in result.output, result.output
    result = cli("--lang", "ja", "check", path)
    assert result.exit_code == 1 and f"{path}:{line}: TOML の構文エラー" in result.output, result.output
    assert japanese in result.output, result.output


def test_other_syntax_errors_keep_the_parsers_words_in_both_languages(cli, tmp_path):
    path = tmp_path / "other.toml"
    path.write_text(HEAD + "[[steps]\n", encoding="utf-8")
    for lang, lead in (("en", "TOML syntax error at column 8: "), ("ja", "TOML の構文エラー（8 列目）: ")):
        result = cli("--lang", lang, "check", path)
        assert result.exit_code == 1, result.output
        assert f"{path}:5: {lead}Expected ']]' at the end of an array declaration" in result.output, result.output
