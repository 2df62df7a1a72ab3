"""The words of every problem `check` reports about a lesson file or a pack, in English and Japanese.

One entry per kind of problem: an English and a Japanese template, filled with the same named values.
A call site names the kind (`say("unknown_key", key=…, hint=…)`) and gets a `LocalText`, the pair
`LessonError` prints in the author's language; so no problem can exist in one language only
(`tests/lessons/test_lessons_messages.py` checks every kind: both languages, the same fields, and
Japanese that is Japanese). A value that is itself a `LocalText` (a hint, a type's name) is filled in
the same language as the sentence around it.

These stay outside the app's and the engine's one catalogue (`engine.wording`): a problem is built in both
languages at once (the author's language is chosen when it is printed), its templates are always filled
(`no_japanese` writes literal braces as `{{ }}` with no field, where the catalogue's `t` fills only when given
parameters), and `TERMS` hold TOML's own braces. A new problem goes in `MESSAGES` below.
"""
from __future__ import annotations

import string

from lessons.text import LocalText

MESSAGES: dict[str, tuple[str, str]] = {
    # --- schema.py: keys and types
    "key_elsewhere": ("key '{key}' is not used here ({reason})",
                      "キー '{key}' はここでは使いません（{reason}）"),
    "key_of_other_kind": ("it belongs to {other} steps, and this is a {kind} step",
                          "{other} ステップのキーで、このステップは {kind} ステップです"),
    "unknown_key": ("unknown key '{key}'{hint}", "不明なキー '{key}' です{hint}"),
    "did_you_mean": (" — did you mean '{close}'?", "。'{close}' のことではありませんか？"),
    "allowed_keys": (" (allowed keys: {keys})", "（使えるキー: {keys}）"),
    "missing_key": ("missing required key '{key}' ({expected})", "必須のキー '{key}' がありません（{expected}）"),
    "expected_got": ("expected {expected}, got {got}", "{expected}が必要ですが、{got}が書かれています"),
    "must_not_be_empty": ("must not be empty", "空にはできません"),
    "text_must_not_be_empty": ("text must not be empty", "テキストを空にはできません"),
    "invalid_id": ("'{value}' is not a valid id: use lowercase letters, digits and '-' (like 'chain-rule')",
                   "'{value}' は ID に使えません。英小文字・数字・'-' だけで書いてください（例: 'chain-rule'）"),
    "no_concept_tag": ("list at least one concept tag", "概念タグを 1 つ以上書いてください"),
    "invalid_tag": ("{tag} is not a valid tag: use lowercase letters, digits and '-'",
                    "{tag} はタグに使えません。英小文字・数字・'-' だけで書いてください"),
    "must_not_be_negative": ("must not be negative", "負の値にはできません"),
    # --- loader.py: the lesson's structure
    "unknown_concept": ("unknown concept '{tag}' — did you mean '{typo}'? (concepts are listed in "
                        "lessons/glossary.toml; a new one goes in your pack's [glossary])",
                        "不明な概念 '{tag}' です。'{typo}' のことではありませんか？（概念の一覧は lessons/glossary.toml "
                        "にあります。新しい概念はパックの [glossary] に書きます）"),
    "format_version": ("this file uses format version {version}; this autograd-tutor reads version {reads}",
                       "このファイルの形式はバージョン {version} ですが、この autograd-tutor が読めるのはバージョン {reads} です"),
    "format_version_newer": ("this file uses format version {version}; this autograd-tutor reads version {reads} — "
                             "update autograd-tutor",
                             "このファイルの形式はバージョン {version} ですが、この autograd-tutor が読めるのはバージョン {reads} "
                             "です。autograd-tutor を更新してください"),
    "no_steps": ("a lesson needs at least one step", "レッスンにはステップが 1 つ以上必要です"),
    "missing_kind": ("missing required key 'kind' (one of: {kinds})",
                     "必須のキー 'kind' がありません（{kinds} のどれか）"),
    "unknown_kind": ("unknown step kind {kind}{hint} (kinds: {kinds})",
                     "不明なステップの種類 {kind} です{hint}（種類: {kinds}）"),
    "predict_needs_snippet": ("a predict step needs a `snippet`, or `continues = true` to predict after the "
                              "previous step's program",
                              "predict ステップには `snippet` が必要です。前のステップのプログラムの続きで予想するなら "
                              "`continues = true` と書きます"),
    "unknown_misconception": ("no misconception '{name}' in lessons/misconceptions.toml{hint}",
                              "lessons/misconceptions.toml に誤解 '{name}' はありません{hint}"),
    "known_misconceptions": (" (known: {names})", "（あるもの: {names}）"),
    "not_an_expression": ("not a Python expression ({reason}): {source}", "Python の式ではありません（{reason}）: {source}"),
    "not_an_error": ("{error} is not an error: write \"<Type>: <message start>\" (like \"RuntimeError: grad can be "
                     "implicitly created\"), \"<Type>\" or \"none\"",
                     "{error} はエラーの書き方になっていません。\"<型>: <メッセージの書き出し>\"（例: \"RuntimeError: grad "
                     "can be implicitly created\"）、\"<型>\"、または \"none\" と書いてください"),
    "unknown_exception": ("{name} is not an exception type Python or PyTorch raises, so this choice could never "
                          "match{hint}",
                          "{name} は Python や PyTorch が送出する例外の型ではないので、この選択肢は決して一致しません{hint}"),
    "name_an_exception": (" (name a Python exception like RuntimeError, TypeError, ValueError, IndexError, or one "
                          "of PyTorch's)",
                          "（RuntimeError、TypeError、ValueError、IndexError のような Python の例外か、PyTorch の例外を"
                          "書いてください）"),
    "two_choices": ("an error step needs at least two choices (one may be \"none\")",
                    "error ステップには選択肢が 2 つ以上必要です（1 つは \"none\" でも構いません）"),
    "two_options": ("a choice step needs at least two options", "choice ステップには選択肢が 2 つ以上必要です"),
    "one_correct": ("exactly one option must have `correct = true` (found {found})",
                    "`correct = true` の選択肢はちょうど 1 つでなければなりません（{found} 個あります）"),
    "duplicate": ("duplicate {what} {value} (also at {other})", "{what} {value} が重複しています（{other} にもあります）"),
    "what_step_id": ("step id", "ステップの ID"),
    "what_quiz_id": ("quiz template id", "クイズテンプレートの ID"),
    "what_choice": ("choice", "選択肢"),
    "first_continues": ("the first step cannot continue: there is no previous step",
                        "最初のステップには続ける前のステップがないので、continues は使えません"),
    "nothing_to_continue": ("the previous step has no program to continue: give it a `snippet` (or "
                            "`continues = true` after a step with one)",
                            "前のステップには続けるプログラムがありません。前のステップに `snippet` を書いてください"
                            "（または、プログラムのあるステップのあとで `continues = true` とします）"),
    "braces": ("{reason}; write {{{{ and }}}} for literal braces",
               "{reason}。波括弧そのものは {{{{ と }}}} で書きます"),
    "placeholder_no_param": ("placeholder {{{name}}} has no entry in [quiz.params]",
                             "プレースホルダー {{{name}}} に対応する項目が [quiz.params] にありません"),
    "placeholder_no_param_braces": ("placeholder {{{name}}} has no entry in [quiz.params] (write {{{{ and }}}} for "
                                    "literal braces)",
                                    "プレースホルダー {{{name}}} に対応する項目が [quiz.params] にありません"
                                    "（波括弧そのものは {{{{ と }}}} で書きます）"),
    "placeholder_plain": ("placeholder {{{name}}} must be plain, without '!' or ':'",
                          "プレースホルダー {{{name}}} には '!' や ':' を付けられません"),
    "param_unused": ("param '{name}' is not used in the snippet", "パラメータ '{name}' はスニペットで使われていません"),
    "param_name": ("param name {name} must be a Python identifier", "パラメータ名 {name} は Python の識別子にしてください"),
    "param_table": ("expected a table like {{ kind = \"int\", low = 1, high = 5 }}, got {got}",
                    "{{ kind = \"int\", low = 1, high = 5 }} のようなテーブルが必要ですが、{got}が書かれています"),
    "param_kind": ("param kind must be one of {kinds}, got {kind}",
                   "パラメータの kind は {kinds} のどれかです（{kind} と書かれています）"),
    "choice_values": ("list at least one value; values are strings or numbers",
                      "値を 1 つ以上書いてください。値は文字列か数値です"),
    "high_below_low": ("high ({high}) must not be less than low ({low})", "high（{high}）は low（{low}）以上にしてください"),
    "decimals": ("use 0 to 6 decimals", "decimals は 0〜6 にしてください"),
    "shapes": ("expected a non-empty array of shapes like [[2, 3], [3], []] with positive sizes",
               "[[2, 3], [3], []] のような、正のサイズの形状を並べた空でない配列が必要です"),
    "shape_too_big": ("shape {shape} has {cells} cells; keep quiz tensors at most {cap} cells so a learner can "
                      "predict them",
                      "形状 {shape} のセルは {cells} 個です。学習者が予想できるように、クイズのテンソルは {cap} セル以下にしてください"),
    # --- loader.py: reading the file
    "not_a_regular_file": ("not a regular file", "通常のファイルではありません"),
    "file_not_found": ("file not found", "ファイルが見つかりません"),
    "cannot_read": ("cannot read the file: {reason}", "ファイルを読めません: {reason}"),
    "empty_file": ("the file is empty; `autograd-tutor new NAME` writes a template to start from",
                   "ファイルが空です。`autograd-tutor new NAME` で、書き始めるためのテンプレートを作れます"),
    "binary_file": ("this is a binary file (it contains NUL bytes), not a TOML lesson",
                    "バイナリファイル（NUL バイトを含む）で、TOML のレッスンではありません"),
    "not_utf8": ("not valid UTF-8 (byte 0x{byte} at column {column}); save the file with UTF-8 encoding",
                 "UTF-8 として読めません（{column} 列目のバイト 0x{byte}）。ファイルを UTF-8 で保存してください"),
    "file_too_big": ("the file is {size} MB; a lesson file may be at most {cap} MB — is this the right file?",
                     "ファイルが {size} MB あります。レッスンのファイルは {cap} MB までです。正しいファイルでしょうか？"),
    # --- tomlhelp.py: TOML the parser refuses (the common slips have their own words there)
    "toml_syntax": ("TOML syntax error at column {column}: {reason}", "TOML の構文エラー（{column} 列目）: {reason}"),
    "toml_syntax_end": ("TOML syntax error at the end of the file: {reason}", "TOML の構文エラー（ファイルの終わり）: {reason}"),
    "toml_not_a_value": ("TOML syntax error at column {column}: `{word}` is not a TOML value: put text in quotes "
                         "(\"{word}\"); booleans are `true`/`false`",
                         "TOML の構文エラー（{column} 列目）: `{word}` は TOML の値ではありません。文字列は引用符で囲みます"
                         "（\"{word}\"）。真偽値は `true`/`false` です"),
    "toml_lowercase_bool": ("TOML syntax error at column {column}: TOML's booleans are lowercase: write `{right}`, "
                            "not `{word}`",
                            "TOML の構文エラー（{column} 列目）: TOML の真偽値は小文字です。`{word}` ではなく `{right}` と書いてください"),
    "toml_yes_no": ("TOML syntax error at column {column}: TOML has no `{word}`: write `{right}` (or \"{word}\" in "
                    "quotes for the text), not `{word}`",
                    "TOML の構文エラー（{column} 列目）: TOML に `{word}` はありません。`{right}` と書いてください"
                    "（文字列なら \"{word}\" と引用符で囲みます）"),
    "toml_no_null": ("TOML syntax error at column {column}: TOML has no None/null: leave the key out instead, "
                     "not `{word}`",
                     "TOML の構文エラー（{column} 列目）: TOML に None/null はありません。`{word}` と書く代わりに、"
                     "そのキーを書かないでください"),
    "too_deep": ("the file nests too deeply to be read", "入れ子が深すぎて読めません"),
    "nesting_bound": ("arrays and tables are nested more than {cap} deep here; a lesson needs at most a few levels — "
                      "is this the right file?",
                      "ここでは配列やテーブルの入れ子が {cap} 段を超えています。レッスンに必要なのはせいぜい数段です。"
                      "正しいファイルでしょうか？"),
    "key_parts_bound": ("a dotted key or table name here has more than {cap} parts; a lesson needs at most a few "
                        "(like quiz.params.n) — is this the right file?",
                        "ここにあるドット区切りのキーやテーブル名は {cap} 個を超える部分からできています。レッスンに必要なのは"
                        "せいぜい数個（quiz.params.n など）です。正しいファイルでしょうか？"),
    "entries_bound": ("the file has more than {cap} keys and array items; a lesson has far fewer — split it into "
                      "several lessons, or check that this is the right file",
                      "キーと配列の要素が合わせて {cap} 個を超えています。レッスンはずっと少ないはずです。"
                      "いくつかのレッスンに分けるか、正しいファイルかどうかを確かめてください"),
    # --- validate.py and answers.py: running the lesson
    "expect_fails": ("`{expect}` fails: {error}", "`{expect}` が失敗します: {error}"),
    "expect_disagrees": ("the engine computes `{expression}` = {engine}, but expect gives {expect}",
                         "エンジンが計算した `{expression}` は {engine} ですが、expect は {expect} です"),
    "answer_too_big": ("{lead}the answer `{expression}` has {cells} cells (shape {shape}); learners are asked for at "
                       "most {cap} cells (the cap quiz tensors use too): predict a smaller tensor or a part of it, "
                       "like `{expression}[0]`",
                       "{lead}答え `{expression}` のセルは {cells} 個（形状 {shape}）ですが、学習者に求めるのは {cap} セルまでです"
                       "（クイズのテンソルと同じ上限です）。もっと小さいテンソルか、`{expression}[0]` のようにその一部を"
                       "予想させてください"),
    "answer_nonfinite": ("{lead}the answer `{expression}` contains {which}; if that is the point of the question, "
                         "say so with `nonfinite = true`, else change the numbers so the answer is finite",
                         "{lead}答え `{expression}` に {which} が含まれています。それが問いの狙いなら `nonfinite = true` と"
                         "書いてください。そうでなければ、答えが有限になるように数値を変えてください"),
    "with_seed": ("with seed {seed} ({params}): ", "シード {seed}（{params}）のとき: "),
    "engine_gap": ("the program fails because the engine lacks something PyTorch has ({error}); learners would "
                   "learn an engine gap, not PyTorch: teach something the engine supports (docs/api.md lists it)",
                   "PyTorch にはあってエンジンにないものが使われているため、プログラムが失敗します（{error}）。これでは学習者が"
                   "学ぶのは PyTorch ではなくエンジンの欠けです。エンジンが対応しているもの（docs/api.md に一覧があります）で"
                   "教えてください"),
    "torch_name_missing": ("the answer is an AttributeError for a torch name ({error}); if PyTorch has that name, "
                           "this teaches a gap of the engine (see docs/api.md) — confirm with `check --against-torch`",
                           "答えが torch の名前についての AttributeError です（{error}）。PyTorch にその名前があるなら、"
                           "これはエンジンの欠けを教えることになります（docs/api.md を参照）。`check --against-torch` で"
                           "確かめてください"),
    "no_code": ("this step has no code: add a `snippet` or `continues = true`",
                "このステップにはコードがありません。`snippet` か `continues = true` を書いてください"),
    "expression_fails": ("`{expression}` fails after the program: {error}", "プログラムのあとで `{expression}` が失敗します: {error}"),
    "program_fails": ("the program fails: {error}", "プログラムが失敗します: {error}"),
    "program_lacks_name": ("the program fails: {error}; if PyTorch has that name, the tutor's engine does not: "
                           "write the step with what it provides (docs/api.md lists it)",
                           "プログラムが失敗します: {error}。PyTorch にその名前があるなら、チューターのエンジンにはありません。"
                           "エンジンが対応しているもの（docs/api.md に一覧があります）でステップを書いてください"),
    "program_refused": ("the snippet runner refuses the program: {error}", "スニペットの実行系がプログラムを拒否しました: {error}"),
    "no_matching_choice": ("no choice matches what the program does ({outcome}); add that outcome as a choice",
                           "プログラムの結果（{outcome}）に一致する選択肢がありません。この結果を選択肢に加えてください"),
    "runs_without_error": ("it runs without error", "エラーなしで実行されます"),
    "two_choices_match": ("choices {listed} both match ({outcome}); exactly one may match",
                          "選択肢 {listed} がどちらも一致します（{outcome}）。一致してよいのは 1 つだけです"),
    "untypable_answer": ("the expression gives a {kind}, which a learner cannot type; predict a tensor, a number, a "
                         "bool, None or a text such as `y.grad_fn.name()`",
                         "式の値が {kind} で、学習者には入力できません。テンソル、数値、真偽値、None、または "
                         "`y.grad_fn.name()` のような文字列を予想させてください"),
    # --- lint.py: what a valid lesson lacks (warnings), and Japanese required by --require-lang ja
    "warning": ("warning: {message}", "警告: {message}"),
    "no_help": ("predict step '{step}' has {missing}: a learner who gets it wrong is left without help — add "
                "`hints` (from a nudge to the idea) and an `explanation`",
                "predict ステップ '{step}' には{missing}ありません。間違えた学習者が手がかりを得られません。"
                "`hints`（軽い手がかりから考え方まで）と `explanation` を書いてください"),
    "no_hints_no_explanation": ("no hints and no explanation", "ヒントも解説も"),
    "no_hints": ("no hints", "ヒントが"),
    "no_explanation": ("no explanation", "解説が"),
    "no_quiz": ("lesson '{lesson}' has no quiz template: add a [[quiz]] so learners can practise its concepts with "
                "fresh numbers (docs/authoring.md, section 5)",
                "レッスン '{lesson}' にはクイズのテンプレートがありません。学習者が新しい数値で概念を練習できるように "
                "[[quiz]] を加えてください（docs/authoring.md の 5 節）"),
    "new_tag": ("'{tag}' is a new concept tag (not in lessons/glossary.toml): if it is not a typo, declare it in your "
                "pack's [glossary]",
                "'{tag}' は新しい概念タグです（lessons/glossary.toml にありません）。入力ミスでなければ、パックの "
                "[glossary] で宣言してください"),
    "term_variant": ("{owner}: the Japanese text uses '{variant}'; the course's term for '{en}' is '{ja}' "
                     "(lessons/terms.toml)",
                     "{owner}: 日本語のテキストに '{variant}' が使われています。このコースでの '{en}' の訳語は '{ja}' です"
                     "（lessons/terms.toml）"),
    "owner_step": ("step '{id}'", "ステップ '{id}'"),
    "owner_quiz": ("quiz template '{id}'", "クイズテンプレート '{id}'"),
    "owner_lesson": ("the lesson", "レッスン"),
    "untranslated": ("{count} of {total} texts have no Japanese (the first is {first}); learners with --lang ja see "
                     "English there — `check --require-lang ja` lists them all",
                     "{total} 個のテキストのうち {count} 個に日本語がありません（最初は {first}）。--lang ja の学習者には"
                     "そこが英語で表示されます。`check --require-lang ja` ですべて表示できます"),
    "no_japanese": ("no Japanese text: write it as {{ en = \"…\", ja = \"…\" }} (Japanese is required here)",
                    "日本語のテキストがありません。{{ en = \"…\", ja = \"…\" }} と書いてください（ここでは日本語が必須です）"),
    "ja_is_english": ("the Japanese text is the English one (as `autograd-tutor new` writes a title): write it in "
                      "Japanese",
                      "日本語のテキストが英語のままです（`autograd-tutor new` が書くタイトルなど）。日本語で書いてください。"),
    "ja_placeholder": ("the Japanese text still has the placeholder {placeholder} of `autograd-tutor new`: replace it",
                       "日本語のテキストに `autograd-tutor new` のプレースホルダー {placeholder} が残っています。書き換えてください。"),
    "near_duplicate": ("option {j} is nearly the same as option {i} ({text_j} / {text_i}): a learner cannot tell "
                       "them apart",
                       "選択肢 {j} が選択肢 {i} とほとんど同じです（{text_j} / {text_i}）。学習者には見分けがつきません"),
    # --- course.py and the check command: files and ids across a folder
    "folder_not_found": ("lesson folder not found", "レッスンのフォルダーが見つかりません"),
    "not_a_folder": ("not a folder: give a folder of *.toml lessons", "フォルダーではありません。*.toml のレッスンが入ったフォルダーを指定してください"),
    "duplicate_lesson_id": ("duplicate lesson id '{id}': {other} uses it already; give this lesson another id",
                            "レッスンの ID '{id}' が重複しています。{other} がすでに使っています。このレッスンには別の ID を付けてください"),
    "duplicate_lesson_id_here": ("duplicate lesson id '{id}' (also in {other})",
                                 "レッスンの ID '{id}' が重複しています（{other} にもあります）"),
    "lesson_id_taken": ("lesson id '{id}' is already used by {other} ({where}); the tutor would not load this lesson "
                        "— give it another id, like '{suggestion}'",
                        "レッスンの ID '{id}' は {other}（{where}）がすでに使っています。このままではチューターがこのレッスンを"
                        "読み込みません。'{suggestion}' のような別の ID を付けてください"),
    "no_lesson_files": ("no lesson files (*.toml) in this folder", "このフォルダーにはレッスンのファイル（*.toml）がありません"),
    "internal_error": ("internal error in the checker ({error}); please report it",
                       "チェッカーの内部エラーです（{error}）。報告してください"),
    "not_read_as_lesson": ("warning: not read as a lesson: it has no `format_version = 1` (only files with it, or in "
                           "a pack, are lessons)",
                           "警告: レッスンとしては読みません。`format_version = 1` がないからです（レッスンになるのは、"
                           "これがあるファイルか、パックの中のファイルだけです）"),
    # --- against_torch.py: the engine's answers against PyTorch's
    "torch_unavailable": ("PyTorch could not be run: {reason}", "PyTorch を実行できませんでした: {reason}"),
    "torch_other_error": ("the engine gives {engine}, PyTorch gives {torch}",
                          "エンジンの結果は {engine}、PyTorch の結果は {torch} です"),
    "no_error": ("no error", "エラーなし"),
    "torch_fails": ("PyTorch fails where the engine does not: {error}", "エンジンでは成功するのに PyTorch では失敗します: {error}"),
    "torch_uncomparable": ("`{expression}`: PyTorch's value cannot be compared: {reason}",
                           "`{expression}`: PyTorch の値と比べられません: {reason}"),
    "torch_differs": ("`{expression}`: the engine computes {engine}, PyTorch computes {torch}",
                      "`{expression}`: エンジンの計算結果は {engine}、PyTorch の計算結果は {torch} です"),
    # --- packs.py: pack.toml
    "pack_format": ("this pack uses pack format {version}; this autograd-tutor reads {reads}",
                    "このパックの形式は {version} ですが、この autograd-tutor が読めるのは {reads} です"),
    "pack_name_long": ("keep the pack name at most 64 characters", "パック名は 64 文字以内にしてください"),
    "pack_version": ("'{version}' is not a version: write it like \"1.0.0\"",
                     "'{version}' はバージョンの書き方になっていません。\"1.0.0\" のように書いてください"),
    "pack_language": ("'{lang}' is not a language the tutor has: use {langs}",
                      "'{lang}' はチューターにない言語です。{langs} を使ってください"),
    "pack_needs_english": ("English is required: every text has `en` (list \"en\", and \"ja\" if translated)",
                           "英語は必須です。どのテキストにも `en` があります（\"en\" と、翻訳があれば \"ja\" を書いてください）"),
    "pack_licence_twice": ("give the licence once: `licence` or `license`, not both",
                           "ライセンスは 1 回だけ書いてください。`licence` か `license` のどちらかで、両方は書けません"),
    "pack_no_lessons": ("list at least one lesson file", "レッスンのファイルを 1 つ以上書いてください"),
    "pack_empty_string": ("expected a non-empty string in {key}", "{key} には空でない文字列を書いてください"),
    "pack_twice": ("{key} lists the same entry twice", "{key} に同じ項目が 2 回あります"),
    "pack_lesson_path": ("'{name}' must be a lesson file inside the pack folder, like \"first.toml\"",
                         "'{name}' はパックのフォルダー内のレッスンファイルにしてください（例: \"first.toml\"）"),
    "pack_lesson_missing": ("'{name}' is listed but there is no such file in {folder}",
                            "'{name}' が書かれていますが、{folder} にそのファイルはありません"),
    "pack_lesson_unlisted": ("{name} is in the pack folder but not listed in `lessons`: list it (in course order) or "
                             "move it out",
                             "{name} はパックのフォルダーにありますが `lessons` に書かれていません。（コースの順に）書き加えるか、"
                             "フォルダーの外へ移してください"),
    "pack_tag": ("'{tag}' is not a valid concept tag: use lowercase letters, digits and '-'",
                 "'{tag}' は概念タグに使えません。英小文字・数字・'-' だけで書いてください"),
    # --- packs.py: a pack archive refused before anything is written (said after "<archive>: ")
    "archive_unreadable": ("cannot read the file: {reason}", "ファイルを読めません: {reason}"),
    "archive_too_big": ("the archive is {size} MB; a pack may be at most {limit} MB",
                        "アーカイブは {size} MB あります。パックは {limit} MB までです"),
    "archive_not_zip": ("not a pack archive (a .zip written by `autograd-tutor pack`)",
                        "パックのアーカイブ（`autograd-tutor pack` が書く .zip）ではありません"),
    "archive_too_many": ("the archive has {count} members; a pack may have at most {limit}",
                         "アーカイブのメンバー数は {count} です。パックは {limit} 個までです"),
    "archive_bad_name_encoding": ("the archive is damaged (a member's name is not the UTF-8 it is marked as)",
                                  "アーカイブが壊れています（メンバー名が、示されたとおりの UTF-8 になっていません）"),
    "archive_damaged": ("the archive is damaged: copy or download it again, or ask its author for a new one ({error})",
                        "アーカイブが壊れています。もう一度コピーかダウンロードをするか、作者に作り直してもらってください（{error}）"),
    "archive_cut_off": ("the archive is cut off (it starts as a zip, its end is missing): copy or download it again",
                        "アーカイブが途中で切れています（zip として始まり、終わりの部分がありません）。もう一度コピーかダウンロードをしてください"),
    "archive_member_large": ("member {name} is larger than {limit} MB; lesson files are small",
                             "メンバー {name} は {limit} MB を超えています。レッスンファイルは小さいものです"),
    "archive_no_pack_file": ("no {name}/{file}: this is not a lesson pack",
                             "{name}/{file} がありません。レッスンパックではありません"),
    "archive_not_utf8": ("not valid UTF-8; tell the pack's author",
                         "正しい UTF-8 ではありません。パックの作者に知らせてください"),
    "archive_toml": ("{message}; tell the pack's author", "{message}。パックの作者に知らせてください"),
    "archive_name_mismatch": ("the pack's folder is {folder} but its pack.toml says name = {declared}; they must be "
                              "the same (tell the pack's author)",
                              "パックのフォルダーは {folder} ですが、pack.toml には name = {declared} とあります。"
                              "同じでなければなりません（パックの作者に知らせてください）"),
    "archive_unlisted": ("member {name}/{relative} is not a lesson listed in pack.toml; a pack holds only pack.toml "
                         "and its lessons",
                         "メンバー {name}/{relative} は pack.toml に載っているレッスンではありません。"
                         "パックに入れられるのは pack.toml とそのレッスンだけです"),
    "archive_empty": ("the archive is empty", "アーカイブが空です"),
    "archive_outside": ("member {name} points outside the pack folder; refusing to install",
                        "メンバー {name} はパックのフォルダーの外を指しています。インストールしません"),
    "archive_not_plain": ("member {name} is not a plain path inside the pack folder (an empty or '.' part, or a "
                          "control character); refusing to install",
                          "メンバー {name} はパックのフォルダー内のふつうのパスではありません（空や '.' の部分、"
                          "または制御文字があります）。インストールしません"),
    "archive_link": ("member {name} is a symbolic link; packs may not contain links",
                     "メンバー {name} はシンボリックリンクです。パックにリンクは入れられません"),
    "archive_not_regular": ("member {name} is not a regular file", "メンバー {name} は通常のファイルではありません"),
    "archive_not_in_folder": ("member {name} is not inside the pack's folder",
                              "メンバー {name} がパックのフォルダーの中にありません"),
    "archive_two_folders": ("members are in two folders ({top} and {other}); a pack has one",
                            "メンバーが 2 つのフォルダー（{top} と {other}）に分かれています。パックのフォルダーは 1 つです"),
    "archive_not_lesson": ("member {name} is not a lesson file; a pack holds only pack.toml and its lessons",
                           "メンバー {name} はレッスンファイルではありません。パックに入れられるのは pack.toml とそのレッスンだけです"),
    "archive_encrypted": ("member {name} is encrypted; packs are not",
                          "メンバー {name} は暗号化されています。パックは暗号化しません"),
    "archive_compression": ("member {name} uses compression method {method}; packs written by `autograd-tutor pack` "
                            "use deflate",
                            "メンバー {name} は圧縮方式 {method} を使っています。`autograd-tutor pack` が書くパックは "
                            "deflate を使います"),
    "archive_member_size": ("member {name} is {size} MB; lesson files may be at most {limit} MB",
                            "メンバー {name} は {size} MB あります。レッスンファイルは {limit} MB までです"),
    "archive_bomb": ("member {name} unpacks to {ratio} times its packed size (a lesson is at most {limit}); refusing "
                     "a zip bomb",
                     "メンバー {name} は展開すると圧縮時の {ratio} 倍になります（レッスンは {limit} 倍まで）。"
                     "zip 爆弾とみなしてインストールしません"),
    "archive_unpacks_big": ("the archive unpacks to more than {limit} MB",
                            "アーカイブは展開すると {limit} MB を超えます"),
    "archive_twice": ("member {name} appears twice", "メンバー {name} が 2 回現れます"),
    "archive_no_files": ("the archive has no files", "アーカイブにファイルがありません"),
    "archive_folder_name": ("the pack folder {folder} is not a pack name (lowercase letters, digits, '-')",
                            "パックのフォルダー {folder} はパック名になっていません（英小文字・数字・'-'）"),
}

# What a value is or should be, for "expected …, got …": the TOML names of types and the shapes of keys.
TERMS: dict[str, tuple[str, str]] = {
    "boolean": ("a boolean", "真偽値"),
    "integer": ("an integer", "整数"),
    "float": ("a float", "浮動小数点数"),
    "string": ("a string", "文字列"),
    "array": ("an array", "配列"),
    "table": ("a table", "テーブル"),
    "datetime": ("a date/time", "日付・時刻"),
    "true_or_false": ("true or false", "true または false の値"),
    "number": ("a number", "数値"),
    "tags": ("an array of tags", "タグの配列"),
    "text": ("a text: a string or { en = \"…\", ja = \"…\" }", "テキスト、つまり文字列か { en = \"…\", ja = \"…\" }"),
    "text_value": ("a text (a string or { en = \"…\", ja = \"…\" })", "テキスト（文字列か { en = \"…\", ja = \"…\" }）"),
    "texts": ("an array of texts", "テキストの配列"),
    "tables": ("an array of tables ([[{key}]] sections)", "テーブルの配列（[[{key}]] のセクション）"),
    "tolerance": ("a table { rtol = …, atol = … }", "テーブル { rtol = …, atol = … }"),
    "params": ("a table of parameters", "パラメータのテーブル"),
    "values": ("a non-empty array", "空でない配列"),
    "shapes": ("an array of shapes like [[2, 3], [3]]", "[[2, 3], [3]] のような形状の配列"),
    "authors": ("an array of author names, like [\"Ada Lovelace <ada@example.org>\"]",
                "[\"Ada Lovelace <ada@example.org>\"] のような著者名の配列"),
    "languages": ("an array of languages, like [\"en\", \"ja\"]", "[\"en\", \"ja\"] のような言語の配列"),
    "lesson_files": ("an array of lesson files in course order, like [\"first.toml\"]",
                     "[\"first.toml\"] のような、コースの順に並べたレッスンファイルの配列"),
    "glossary": ("a table of concept tags", "概念タグのテーブル"),
    # where a lesson id is already taken (lessons.ids)
    "bundled_course": ("the bundled course", "同梱のコース"),
    "your_folder": ("your lesson folder", "あなたのレッスンフォルダー"),
}


def say(kind: str, /, **values: object) -> LocalText:
    """The problem `kind` in both languages, its fields filled (a `LocalText` value in the same language)."""
    en, ja = MESSAGES[kind]
    return LocalText(en.format(**_in(values, "en")), ja.format(**_in(values, "ja")))


def term(name: str, /, **values: object) -> LocalText:
    """A description of a value (`TERMS`), in both languages."""
    en, ja = TERMS[name]
    return LocalText(en.replace("{key}", str(values.get("key", ""))), ja.replace("{key}", str(values.get("key", ""))))


def fields_of(template: str) -> set[str]:
    """The names a template fills."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def _in(values: dict[str, object], lang: str) -> dict[str, object]:
    return {name: value.get(lang) if isinstance(value, LocalText) else value for name, value in values.items()}
