"""Every sentence the explanation panels say, and every reason the runner and the sandbox give for refusing, stopping
or failing a snippet, in English and Japanese (one catalogue).

The panels are rendered inside the sandbox child (`engine.sandbox.jobs.explain`), and the runner's reasons are raised
there, so the words live here, in the engine, rather than in the app's `tutor.i18n`. A reason is raised in English
with its key and parameters (`engine.runner.errors.reason`), which cross the sandbox's pipe, so the app says it again
in the learner's language (`SnippetError.said`). Terms follow the course's
articles: 勾配 (gradient), ヤコビ行列 (Jacobian), ベクトル・ヤコビ行列積 (VJP), 連鎖律 (chain rule),
葉テンソル (leaf tensor), 計算グラフ, 逆伝播. A test fails when a key lacks its Japanese entry.

This table is part of the one catalogue (`engine.wording`): a new sentence of the engine goes here, under a key no
other table holds (registering refuses a duplicate), and is looked up with `t`, the catalogue's one lookup.
"""
from __future__ import annotations

from engine.wording import LANGUAGES, register, t

__all__ = ["LANGUAGES", "MESSAGES", "t"]

MESSAGES: dict[str, dict[str, str]] = {
    # summary
    "call_title": {"en": "backward call {index} (line {line})", "ja": "backward 呼び出し {index}（{line} 行目）"},
    "call_title_noline": {"en": "backward call {index}", "ja": "backward 呼び出し {index}"},
    "call_title_forward": {"en": "forward-mode call {index} (line {line})", "ja": "順モードの呼び出し {index}（{line} 行目）"},
    "call_title_noline_forward": {"en": "forward-mode call {index}", "ja": "順モードの呼び出し {index}"},
    "output": {"en": "output", "ja": "出力"},
    "v": {"en": "v", "ja": "v"},
    "v_implicit": {"en": "{y} is {one}, so backward() starts from the implicit gradient v = 1",
                   "ja": "{y} は{one}なので、backward() は暗黙の勾配 v = 1 から始まります"},
    "v_implicit_api": {"en": "{y} is {one}, so {api} starts its backward sweep from the implicit gradient v = 1",
                       "ja": "{y} は{one}なので、{api} の逆伝播は暗黙の勾配 v = 1 から始まります"},
    # what lets v = 1 be implicit: one element, 0-dim or not (torch checks numel() == 1, not the shape)
    "one_scalar": {"en": "a scalar", "ja": "スカラー"},
    "one_element": {"en": "a one-element tensor", "ja": "要素 1 個のテンソル"},
    "v_given": {"en": "v is the gradient argument passed to {y}.backward(…)",
                "ja": "v は {y}.backward(…) に渡した gradient 引数です"},
    "v_given_api": {"en": "v is the gradient given to {api}(…)", "ja": "v は {api}(…) に渡した勾配です"},
    # not "at once": torch.autograd.functional.jacobian runs one backward per output element unless vectorize=True
    "v_batched": {"en": "{api} pushes back every one-hot row v = eᵢ, one vᵀJ per output element: what it returns is "
                        "the Jacobian itself",
                  "ja": "{api} は one-hot の行 v = eᵢ をすべて逆伝播し、出力の要素ごとに vᵀJ を 1 つ求めます。"
                        "戻り値はヤコビ行列そのものです"},
    "call_api": {"en": "call", "ja": "呼び出し"},
    "api_accumulates": {"en": "{api}: adds each gradient into .grad", "ja": "{api}: 勾配を .grad に足し込みます"},
    "api_returns": {"en": "{api}: returns the gradient; .grad is not changed",
                    "ja": "{api}: 勾配を返します。.grad は変わりません"},
    # jacobian, hessian, jacrev…: what comes back is a whole Jacobian (a Hessian), not one gradient
    "api_returns_jacobian": {"en": "{api}: returns the whole Jacobian, one gradient row per output element; .grad is "
                                   "not changed",
                             "ja": "{api}: 出力の要素ごとの勾配を行として並べたヤコビ行列全体を返します。.grad は変わりません"},
    "api_checks": {"en": "{api} compares the Jacobian backward gives with finite differences, one backward sweep per "
                         "output element (this is one of them); it returns True or False, and .grad is not changed",
                   "ja": "{api} は backward によるヤコビ行列を有限差分と比べます。逆伝播は出力の要素 1 つにつき 1 回で"
                         "（これはその 1 回です）、結果は True か False です。.grad は変わりません"},
    "v_checks": {"en": "v is one of the one-hot rows (1 on one output element, 0 elsewhere) that {api} pushes back",
                 "ja": "v は {api} が逆伝播する one-hot の行の 1 つです（出力の 1 要素だけが 1、ほかは 0）"},
    "api_forward": {"en": "{api} is forward mode: it pushes the tangent t through the function and returns J·t (this "
                          "engine gets J·t from two backward sweeps, the double-vjp trick; shown here as the J·t "
                          "they compute)",
                    "ja": "{api} は順モードです。接ベクトル t を関数に通して J·t を返します（このエンジンは 2 回の逆伝播、"
                          "double-vjp の方法で J·t を求めます。ここではその結果の J·t として示します）"},
    "api_forward_swept": {"en": "{api} is forward mode (J·t); this engine computes it with backward sweeps (the "
                                "double-vjp trick), each explained as it ran",
                          "ja": "{api} は順モード（J·t）です。このエンジンは逆伝播（double-vjp の方法）で計算するので、"
                                "実行した逆伝播を 1 つずつ説明します"},
    "t_given": {"en": "t is the tangent given to {api}(…): the direction the input moves in",
                "ja": "t は {api}(…) に渡した接ベクトルで、入力を動かす向きです"},
    "tangent_of": {"en": "{name}: its tangent is given; {name}.grad is not changed",
                   "ja": "{name}: 接ベクトルを与えています。{name}.grad は変わりません"},
    "jvp_head": {"en": "J·t for {x}: the Jacobian times the column vector t (forward mode)",
                 "ja": "{x} のヤコビ行列・ベクトル積 (JVP) J·t: J に列ベクトル t を右から掛けます（順モード）"},
    "jvp_t": {"en": "t (the tangent of {x}, flattened) =", "ja": "t（{x} の接ベクトルを平らにしたもの）="},
    "jvp_term": {"en": "J·t adds one term per input: this is {x}'s, J for {x} times its tangent",
                 "ja": "J·t は入力ごとの項の和です。これは {x} の項で、{x} についての J にその接ベクトルを掛けます"},
    "jvp_times": {"en": "{x}'s term, J·t for {x} =", "ja": "{x} の項（{x} についての J·t）="},
    "jvp_result": {"en": "J·t =", "ja": "J·t ="},
    "jvp_check": {"en": "{mark} J·t equals the tangent {api} returned for {y}",
                  "ja": "{mark} J·t は {api} が {y} について返した接ベクトルと一致します"},
    "jvp_check_bad": {"en": "{mark} J·t differs from the tangent {api} returned for {y}",
                      "ja": "{mark} J·t は {api} が {y} について返した接ベクトルと一致しません"},
    "chain_forward": {"en": "forward mode: ∂{y}/∂{x} is in the Jacobian tab (with its symbolic form when there is one); "
                            "J·t multiplies it by the tangent, so the chain rule is the same product of local "
                            "derivatives, applied from the input side",
                      "ja": "順モード: ∂{y}/∂{x} はヤコビ行列タブにあります（記号形式があればそれも）。J·t はそれに接ベクトルを"
                            "掛けたものなので、連鎖律は同じ局所的な微分の積を入力の側から適用したものです"},
    "trace_forward": {"en": "forward mode has no backward to follow node by node: J·t is carried from the inputs "
                            "towards the output",
                      "ja": "順モードには、ノードごとにたどる逆伝播がありません。J·t は入力から出力へ運ばれます"},
    "trace_several": {"en": "backward pushed every output's v through the graph in one sweep; the node-by-node view "
                            "follows a single output, so it is not shown for several at once",
                      "ja": "backward はすべての出力の v を 1 回の逆伝播でまとめてグラフに流しました。ノードごとの表示は "
                            "1 つの出力をたどるものなので、複数の出力をまとめた呼び出しには示しません"},
    "fd_forward_title": {"en": "finite-difference check of J·t", "ja": "J·t の有限差分による確認"},
    "fd_forward_at": {"en": "the function replayed at x + h·t and x − h·t (float64), no derivative rule involved",
                      "ja": "関数を x + h·t と x − h·t で再計算（float64）。微分の規則は使いません"},
    "panel_jvp": {"en": "Jacobian-vector product (JVP)", "ja": "ヤコビ行列・ベクトル積 (JVP)"},
    "symbolic_several": {"en": "no symbolic form for several outputs at once: the numbers are shown, each checked",
                         "ja": "複数の出力をまとめて微分した呼び出しには記号形式を示しません。数値はそれぞれ確かめて表示しています"},
    "several_outputs": {"en": "{count} outputs were differentiated at once ({names}): they are read here as one vector, "
                              "each flattened, one after another, and v likewise; J stacks their Jacobians, so vᵀJ = "
                              "v₁ᵀJ₁ + v₂ᵀJ₂ + …, the sum backward computes",
                        "ja": "{count} 個の出力（{names}）をまとめて微分しました。ここではそれぞれを平らにして順に並べた 1 つの"
                              "ベクトルとして読み、v も同じように並べます。J はそれぞれのヤコビ行列を縦に積んだもので、"
                              "vᵀJ = v₁ᵀJ₁ + v₂ᵀJ₂ + … が backward の計算する和です"},
    "returned": {"en": "{name}: the gradient is returned ({name}.grad is not changed)",
                 "ja": "{name}: 勾配は戻り値になります（{name}.grad は変わりません）"},
    "returned_jacobian": {"en": "{name}: its Jacobian is returned ({name}.grad is not changed)",
                          "ja": "{name}: ヤコビ行列は戻り値になります（{name}.grad は変わりません）"},
    "leaf": {"en": "leaf {name}", "ja": "葉テンソル {name}"},
    "grad_held": {"en": "{name}.grad already held a gradient; this call adds to it",
                  "ja": "{name}.grad にはすでに勾配があり、この呼び出しはそこに足し込みます"},
    "grad_empty": {"en": "{name}.grad was empty before this call",
                   "ja": "この呼び出しの前、{name}.grad は空（None）でした"},
    "equals": {"en": "{name} =", "ja": "{name} ="},
    "raised": {"en": "this backward call raised {error}: no gradient was produced, so there is nothing to check",
               "ja": "この backward 呼び出しは {error} を送出しました。勾配は作られなかったので、確かめるものはありません"},
    "raised_short": {"en": "backward call {index} raised: see the Answer tab",
                     "ja": "backward 呼び出し {index} はエラーになりました（「答え」タブを参照）"},
    # shapes and constants
    "scalar": {"en": "scalar", "ja": "スカラー"},
    "length": {"en": "length {n}", "ja": "長さ {n}"},
    "constant": {"en": "constant {value}", "ja": "定数 {value}"},
    "constant_tensor": {"en": "{name} ({shape}, no grad)", "ja": "{name}（{shape}、勾配なし）"},
    "constant_word": {"en": "constant", "ja": "定数"},
    # Jacobian
    "jacobian_head": {"en": "J = ∂vec({y}) / ∂vec({x}): {m}x{n} ({y_shape} output, {x_shape} input)",
                      "ja": "J = ∂vec({y}) / ∂vec({x}): {m}x{n}（出力 {y_shape}、入力 {x_shape}）"},
    # matrix calculus' vec stacks columns; here (and in PyTorch's .flatten()) a matrix is read row by row
    "jacobian_vec_rows": {"en": " (vec: flattened row by row, as .flatten())",
                          "ja": "（vec は行ごとに平坦化、.flatten() と同じ）"},
    "symbolic_intro": {"en": "symbolic (each input element a symbol):",
                       "ja": "記号で（入力の各要素を記号として）:"},
    # every symbol takes its value at the call: the leaf's, and those of the named constants in the formula
    "substituted": {"en": "with every symbol's value at this call substituted:", "ja": "この呼び出し時の値を各記号に代入すると:"},
    "symbolic_note": {"en": "numbers only: {note}", "ja": "数値のみ表示します: {note}"},
    "symbolic_unverified": {"en": "symbolic form not shown: it did not match the engine's numbers at these values",
                            "ja": "記号形式は表示しません: この値でエンジンの数値と一致しませんでした"},
    "symbolic_point_only": {"en": "symbolic form not shown: it holds at these exact values only (a kink such as relu "
                                  "or abs at 0, or a tie in max), not at values nearby",
                            "ja": "記号形式は表示しません: ちょうどこの値でしか成り立たず（relu や abs が 0 で折れ曲がる点、"
                                  "max の同点など）、近くの値では成り立ちません"},
    "kind_zero": {"en": "all zero here: backward's gradient is 0 at these values, so a small change of {x} does not "
                        "move {y} to first order — unless {x} sits at a kink (relu or abs at 0, a tie in max), where "
                        "0 is only the value PyTorch picks",
                  "ja": "すべて 0: この値では backward の勾配が 0 なので、{x} を少し変えても {y} は 1 次の近似では変わりません。"
                        "ただし {x} が折れ曲がる点（0 での relu や abs、max の同点）にあるときは別で、0 は PyTorch が"
                        "選んだ値にすぎません"},
    "kind_undefined": {"en": "some entries are nan or infinite: backward gives no finite number here (the derivative "
                             "may be undefined, or a branch not taken may have poisoned it: see the finite differences)",
                       "ja": "nan や無限大の成分があります: backward はここで有限の値を出しません（微分が定義されないか、"
                             "使われなかった分岐が nan を持ち込んだ可能性があります。有限差分と比べてください）"},
    "kind_scalar": {"en": "a single number", "ja": "1 つの数"},
    "kind_identity": {"en": "the identity at these values", "ja": "この値では単位行列"},
    "kind_diagonal": {"en": "diagonal: at these values, each output element moves only with the input element at the "
                            "same place",
                      "ja": "対角行列: この値では、出力の各要素は同じ位置の入力要素だけに応じて変わります"},
    "kind_constant": {"en": "every entry equal at these values: here each input element counts the same (as in sum "
                            "or mean)",
                      "ja": "この値ではすべての成分が等しい: ここでは入力のどの要素も同じだけ効きます（sum や mean のように）"},
    "kind_rows_equal": {"en": "every row equal at these values", "ja": "この値ではすべての行が等しい"},
    "kind_row": {"en": "one row (a scalar output): the row is the gradient itself",
                 "ja": "1 行（出力がスカラー）: この行がそのまま勾配です"},
    "kind_row_one": {"en": "one row (a one-element output): the row is the gradient itself",
                     "ja": "1 行（出力の要素が 1 個）: この行がそのまま勾配です"},
    "kind_block": {"en": "block-diagonal with {bm}x{bn} blocks: at these values, each group of outputs moves only "
                         "with its own group of inputs",
                   "ja": "{bm}x{bn} のブロック対角行列: この値では、出力の各グループは対応する入力のグループだけに応じて変わります"},
    "kind_dense": {"en": "dense ({nonzero} of {total} entries non-zero)",
                   "ja": "密（{total} 成分中 {nonzero} 個が 0 以外）"},
    "kind_unstructured": {"en": "no diagonal or block structure in this order ({nonzero} of {total} entries non-zero)",
                          "ja": "この並びでは対角やブロックの構造がありません（{total} 成分中 {nonzero} 個が 0 以外）"},
    "diagonal_laid_out": {"en": "only the diagonal is non-zero; here it is in the input's shape (entry i is ∂yᵢ/∂xᵢ):",
                          "ja": "0 でないのは対角成分だけです。入力の形状に並べると（i 番目が ∂yᵢ/∂xᵢ）:"},
    "block_title": {"en": "block {k} of {total}", "ja": "ブロック {k} / {total}"},
    "more_values": {"en": "… and {count} more ({total} values in all)", "ja": "…ほか {count} 個（全部で {total} 個の値）"},
    "jacobian_too_large": {"en": "J has {entries} entries ({m}x{n}): too many to build here, so this panel does not "
                                 "show it. The VJP shows what backward computed: one row, vᵀJ, from a single sweep, "
                                 "without forming J",
                           "ja": "J の要素は {entries} 個（{m}x{n}）あり、ここで組み立てるには多すぎるので表示しません。"
                                 "VJP には backward が計算したもの、つまり J を作らずに 1 回の逆伝播で得られる 1 行 vᵀJ "
                                 "を示します"},
    "jacobian_too_large_batched": {"en": "{api} returned a Jacobian of {entries} entries: too many to rebuild and check "
                                         "here",
                                   "ja": "{api} が返したヤコビ行列は要素が {entries} 個あり、ここで組み立て直して確かめる"
                                         "には多すぎます"},
    "more_blocks": {"en": "… {count} more blocks; everything off the blocks is 0",
                    "ja": "… ほかに {count} 個のブロック。ブロックの外はすべて 0"},
    "nonzero_map": {"en": "where the non-zeros are (■ non-zero, · zero), one line per output element:",
                    "ja": "0 でない成分の位置（■ 0 以外、· 0）、出力の要素ごとに 1 行:"},
    "wide_matrix": {"en": "the matrix is too wide for this panel; its non-zero pattern:",
                    "ja": "行列がこの幅に収まらないので、0 でない成分の位置を示します:"},
    # VJP
    "vjp_head": {"en": "vᵀJ for {x}: the row vector v times the Jacobian",
                 "ja": "{x} のベクトル・ヤコビ行列積 (VJP) vᵀJ: 行ベクトル vᵀ に J を右から掛けます"},
    "vjp_v": {"en": "v (flattened, read row by row) =", "ja": "v（行ごとに読んで平らにしたもの）="},
    "vjp_v_plain": {"en": "vᵀ =", "ja": "vᵀ ="},
    "vjp_times_j": {"en": "· J (the Jacobian above) =", "ja": "· J（上のヤコビ行列）="},
    "vjp_times_unbuilt_j": {"en": "· J (too large to build; one backward sweep gives the product without it) =",
                            "ja": "· J（大きすぎて組み立てません。逆伝播 1 回で J を作らずに積が求まります）="},
    "vjp_symbolic": {"en": "vᵀJ symbolically =", "ja": "記号で vᵀJ ="},
    "vjp_result": {"en": "vᵀJ (flattened, read row by row) =", "ja": "vᵀJ（行ごとに読んで平らにしたもの）="},
    "vjp_result_plain": {"en": "vᵀJ =", "ja": "vᵀJ ="},
    "vjp_by_row": {"en": "element by element: element j of vᵀJ is Σᵢ vᵢ·Jᵢⱼ, v against column j of J",
                   "ja": "成分ごとに: vᵀJ の j 番目は Σᵢ vᵢ·Jᵢⱼ（v と J の j 列目の積の和）"},
    "vjp_reshaped": {"en": "reshaped to {x}'s shape {shape}:", "ja": "{x} の形状 {shape} に戻すと:"},
    "vjp_accumulated": {"en": "{x}.grad already held a gradient from an earlier backward call; gradients accumulate, "
                              "so {x}.grad = before + vᵀJ:",
                        "ja": "{x}.grad には前の backward 呼び出しの勾配が残っていました。勾配は足し込まれるので "
                              "{x}.grad = 前の値 + vᵀJ:"},
    "vjp_check_accumulated": {"en": "{mark} before + vᵀJ equals {x}.grad after this call",
                              "ja": "{mark} 前の値 + vᵀJ はこの呼び出し後の {x}.grad と一致します"},
    "vjp_check_accumulated_bad": {"en": "{mark} before + vᵀJ differs from {x}.grad after this call",
                                  "ja": "{mark} 前の値 + vᵀJ はこの呼び出し後の {x}.grad と一致しません"},
    "vjp_check": {"en": "{mark} vᵀJ equals {x}.grad", "ja": "{mark} vᵀJ は {x}.grad と一致します"},
    "vjp_check_returned": {"en": "{mark} vᵀJ equals the gradient {api} returned for {x}",
                           "ja": "{mark} vᵀJ は {api} が {x} について返した勾配と一致します"},
    "vjp_check_returned_bad": {"en": "{mark} vᵀJ differs from the gradient {api} returned for {x}",
                               "ja": "{mark} vᵀJ は {api} が {x} について返した勾配と一致しません"},
    "vjp_batched": {"en": "{mark} J equals what {api} returned for {x}: one vᵀJ per one-hot row v = eᵢ",
                    "ja": "{mark} J は {api} が {x} について返した値と一致します（one-hot の行 v = eᵢ ごとの vᵀJ）"},
    "vjp_batched_bad": {"en": "{mark} J differs from what {api} returned for {x}",
                        "ja": "{mark} J は {api} が {x} について返した値と一致しません"},
    "vjp_check_bad": {"en": "{mark} vᵀJ differs from {x}.grad", "ja": "{mark} vᵀJ は {x}.grad と一致しません"},
    "hooks_changed": {"en": "hooks (register_hook) changed the gradient during backward: vᵀJ is the function's own, "
                            "{x}.grad is what the hooks made of it (the Backprop tab shows where)",
                      "ja": "backward の途中でフック（register_hook）が勾配を変えました。vᵀJ は関数そのものの値、"
                            "{x}.grad はフックが変えた後の値です（どこで変わったかは逆伝播タブにあります）"},
    # chain rule
    "chain_pending": {"en": "{y} → {x}: {path} (working out the symbolic factors…)",
                      "ja": "{y} → {x}: {path}（記号の因子を計算中…）"},
    "chain_unavailable": {"en": "{y} → {x}: {path} — {note}",
                          "ja": "{y} → {x}: {path} — {note}"},
    "chain_no_dependence": {"en": "∂{y}/∂{x}: {y} does not depend on {x}", "ja": "∂{y}/∂{x}: {y} は {x} に依存しません"},
    "chain_no_formula": {"en": "∂{y}/∂{x}: no formula could be checked against backward's gradient, so none is "
                               "shown; the Jacobian tab has the numbers",
                         "ja": "∂{y}/∂{x}: backward の勾配と一致を確かめられる式がないため表示しません。"
                               "数値はヤコビ行列タブにあります"},
    "chain_jacobian": {"en": "∂{y}/∂{x}: {api} returned the whole Jacobian; the Jacobian tab shows it, checked",
                       "ja": "∂{y}/∂{x}: {api} はヤコビ行列全体を返しました。ヤコビ行列タブで確かめて表示しています"},
    "chain_segments": {"en": "in segments, from the output down: the gradient arriving at each result the program "
                             "named, each line using the ones above it (written out in full it would run past three "
                             "lines)",
                       "ja": "出力から順に区切って書きます。プログラムが名前を付けた各結果に届く勾配で、各行はそれより上の行を"
                             "使います（まとめて展開すると 3 行を超えるため）"},
    "chain_second": {"en": "{dy} is ∂{y}/∂{x} (autograd.grad with create_graph=True), so this is the second "
                           "derivative d²{y}/d{x}² = ∂{dy}/∂{x}:",
                     "ja": "{dy} は ∂{y}/∂{x}（create_graph=True の autograd.grad）なので、これは二階微分 "
                           "d²{y}/d{x}² = ∂{dy}/∂{x} です:"},
    "chain_timeout": {"en": "∂{y}/∂{x}: the chain rule took too long; numbers only",
                      "ja": "∂{y}/∂{x}: 連鎖律の計算に時間がかかりすぎました。数値のみ表示します"},
    "chain_weighted": {"en": "backward was given the weight {v}, so the formula is {v}ᵀ·∂{y}/∂{x}: its entry j is "
                             "Σᵢ {v}ᵢ·∂{y}ᵢ/∂{x}ⱼ, a sum over the outputs (a vector-Jacobian product)",
                       "ja": "backward に重み {v} を渡したので、式は {v}ᵀ·∂{y}/∂{x} です。その第 j 成分は "
                             "Σᵢ {v}ᵢ·∂{y}ᵢ/∂{x}ⱼ で、出力についての和です（ベクトル・ヤコビ行列積）"},
    "chain_weighted_diagonal": {"en": "backward was given the weight {v}, so the formula is {v}ᵀ·∂{y}/∂{x}; "
                                      "∂{y}/∂{x} is diagonal here, so {v}ᵀ·∂{y}/∂{x} is {v} times its diagonal, "
                                      "element by element (·)",
                                "ja": "backward に重み {v} を渡したので、式は {v}ᵀ·∂{y}/∂{x} です。ここでは ∂{y}/∂{x} "
                                      "が対角なので、{v}ᵀ·∂{y}/∂{x} は {v} とその対角成分の要素ごとの積（·）です"},
    "chain_elementwise": {"en": "each factor is element-wise, so the chain rule is a product, element by element",
                          "ja": "どの因子も要素ごとなので、連鎖律は要素ごとの積になります"},
    "chain_tensor": {"en": "not every node is element-wise; the gradient composed in tensor notation:",
                     "ja": "要素ごとでないノードがあるので、テンソルの記法で合成した勾配:"},
    "chain_steps": {"en": "what arrives at each node (∂{y}/∂ that node's result), from the output down:",
                    "ja": "各ノードに流れてくる勾配（∂{y}/∂ そのノードの結果）、出力から順に:"},
    "chain_steps_weighted": {"en": "what arrives at each node ({v}ᵀ·∂{y}/∂ that node's result), from the output down:",
                             "ja": "各ノードに流れてくる勾配（{v}ᵀ·∂{y}/∂ そのノードの結果）、出力から順に:"},
    "chain_per_element": {"en": "no tensor formula fits; element by element:",
                          "ja": "テンソルの式が当てはまらないので、要素ごとに:"},
    "chain_constant": {"en": "where {name} is a constant of the program (no name of its own):",
                       "ja": "ここで {name} はプログラムの定数です（名前のないテンソル）:"},
    "chain_named": {"en": "written with the program's own intermediate results {names} (as computed in the program)",
                    "ja": "プログラム自身の中間結果 {names}（プログラムで計算したもの）を使って書いています"},
    "chain_more_elements": {"en": "… {count} more elements", "ja": "… ほか {count} 要素"},
    "chain_verified": {"en": "✓ evaluated at the values of this call, the formula equals {x}.grad from backward; "
                             "it also gives backward's gradient with {x} moved slightly",
                       "ja": "✓ この呼び出し時の値で計算すると、式は backward による {x}.grad と一致します。"
                             "{x} を少し動かした値でも backward の勾配と一致します"},
    # when the call's gradient is not all of {x}.grad: autograd.grad returned it, or .grad held one before
    "chain_verified_call": {"en": "✓ evaluated at the values of this call, the formula equals the gradient this call "
                                  "computed for {x} (vᵀJ); it also gives that gradient with {x} moved slightly",
                            "ja": "✓ この呼び出し時の値で計算すると、式はこの呼び出しが {x} について計算した勾配（vᵀJ）と"
                                  "一致します。{x} を少し動かした値でも、その勾配と一致します"},
    "chain_verified_hooked": {"en": "✓ the formula is the function's own gradient vᵀJ: it equals backward's numbers "
                                    "without hooks, at the values of this call and with {x} moved slightly",
                              "ja": "✓ 式は関数そのものの勾配 vᵀJ です。フックなしの backward の数値と、この呼び出し時の"
                                    "値でも {x} を少し動かした値でも一致します"},
    "chain_path": {"en": "path {k}", "ja": "経路 {k}"},
    "chain_paths_add": {"en": "{x} reaches {y} along {count} paths; their contributions add:",
                        "ja": "{x} から {y} への経路は {count} 本あり、それぞれの寄与を足します:"},
    "col_factor": {"en": "factor", "ja": "因子"},
    "col_node": {"en": "node", "ja": "ノード"},
    "col_local": {"en": "local derivative", "ja": "局所的な微分"},
    # graph
    "kind_output": {"en": "output", "ja": "出力"},
    "kind_intermediate": {"en": "intermediate", "ja": "中間"},
    "kind_leaf": {"en": "leaf", "ja": "葉テンソル"},
    "kind_input": {"en": "dual input", "ja": "二重数の入力"},
    "dual_input": {"en": "input {name}", "ja": "入力 {name}"},
    "saved": {"en": "saved: {items}", "ja": "保存: {items}"},
    "shown_above": {"en": "{input}: → {name} (shown above)", "ja": "{input}: → {name}（上に表示）"},
    "leaf_label": {"en": "{name} (leaf)", "ja": "{name}（葉テンソル）"},
    # backward, node by node
    "trace_title": {"en": "step {index} of {total}: {label}", "ja": "ステップ {index} / {total}: {label}"},
    "trace_call": {"en": "backward call {call} (line {line}), ", "ja": "backward 呼び出し {call}（{line} 行目）、"},
    "trace_summed": {"en": "{count} contributions arrive here and are summed:",
                     "ja": "{count} 個の寄与がここに届き、足し合わされます:"},
    "trace_from": {"en": "from {name}:", "ja": "{name} から:"},
    "trace_hooked": {"en": "a hook on this tensor (register_hook) changed the gradient: this is what the hook returned",
                     "ja": "このテンソルのフック（register_hook）が勾配を変えました。以下はフックが返した値です"},
    "trace_incoming": {"en": "gradient arriving (∂ output / ∂ this node's result):",
                       "ja": "流れてくる勾配（∂ 出力 / ∂ このノードの結果）:"},
    "trace_incoming_weighted": {"en": "gradient arriving (vᵀ · ∂ output / ∂ this node's result, v the gradient "
                                      "argument):",
                                "ja": "流れてくる勾配（vᵀ · ∂ 出力 / ∂ このノードの結果。v は backward に渡した勾配）:"},
    "trace_summed_to": {"en": "  the rule gives {rule}; {input} was broadcast, so the engine then sums it over the "
                              "broadcast dimensions to {input}'s shape ({shape}):",
                        "ja": "  規則の結果は {rule} です。{input} はブロードキャストされたので、エンジンがその後、"
                              "ブロードキャストした次元で和を取って {input} の形状（{shape}）にします:"},
    # the prose inside the op table's rule formulas (engine/ops), as the Japanese panels word it: `rule_text`
    "rule_note_mean": {"en": " (/ N for 'mean')", "ja": "（'mean' なら N で割る）"},
    "rule_note_pow_zero": {"en": ', 0 where exponent == 0', "ja": '（exponent == 0 のところは 0）'},
    "rule_note_pow_log": {"en": ', 0 where self == 0 and exponent >= 0', "ja": '（self == 0 かつ exponent >= 0 のところは 0）'},
    "rule_note_threshold": {"en": ': 0 where result <= 0', "ja": ': result <= 0 のところは 0'},
    "rule_note_leaky": {"en": ': grad where self > 0, else grad * negative_slope', "ja": ': self > 0 なら grad、それ以外は grad * negative_slope'},
    "rule_note_elu": {"en": ': grad where self > 0, else grad * alpha * exp(self)', "ja": ': self > 0 なら grad、それ以外は grad * alpha * exp(self)'},
    "rule_note_index_add": {"en": ': zeros with grad added at index', "ja": ': 0 の配列の index の位置に grad を加えたもの'},
    "rule_note_padding": {"en": ', 0 at padding_idx', "ja": '（padding_idx の位置は 0）'},
    "rule_note_embedding": {"en": ': rows of grad added at indices', "ja": ': indices の位置の行に grad の行を加えたもの'},
    "rule_note_offset_diagonal": {"en": 'grad placed on the offset diagonal of zeros shaped like self', "ja": 'self と同じ形状の 0 の配列の、ずらした対角に grad を置いたもの'},
    "rule_note_diagonal": {"en": 'grad on the diagonal of zeros shaped like self', "ja": 'self と同じ形状の 0 の配列の対角に grad を置いたもの'},
    "rule_note_max_tie": {"en": ', halved where self == other, 0 where self < other', "ja": '（self == other のところは半分、self < other のところは 0）'},
    "rule_note_min_tie": {"en": ', halved where self == other, 0 where self > other', "ja": '（self == other のところは半分、self > other のところは 0）'},
    "rule_note_infinite": {"en": ' and 0 where infinite', "ja": '（無限大のところは 0）'},
    "rule_note_unsqueezed": {"en": ' (result and grad unsqueezed over dim)', "ja": '（result と grad は dim で unsqueeze）'},
    "rule_note_product_dim": {"en": '(product of the other elements along dim)', "ja": '（dim 方向の他の要素の積）'},
    "rule_note_product": {"en": '(product of the other elements)', "ja": '（他の要素の積）'},
    "rule_note_var_zero": {"en": ' (0 where result is 0)', "ja": '（result が 0 のところは 0）'},
    "rule_note_norm_p0": {"en": ' (none for p = 0)', "ja": '（p = 0 では勾配なし）'},
    "rule_note_cat": {"en": 'grads of the pieces, concatenated along dim', "ja": '各部分の勾配を dim 方向に連結したもの'},
    "rule_note_nll_reduced": {"en": '-(grad at each target), reduced as the loss', "ja": '-(各ターゲットの位置の grad)、損失と同じように集約'},
    "rule_note_nll": {"en": '-grad at each target', "ja": '各ターゲットの位置に -grad'},
    "rule_note_copy_slices": {"en": 'grad with zeros where src was written', "ja": 'src を書き込んだ位置を 0 にした grad'},
    "rule_note_written": {"en": 'grad at the written elements', "ja": '書き込んだ位置の grad'},
    "rule_note_as_strided": {"en": ': grad added at the viewed elements', "ja": ': ビューの要素の位置に grad を加えたもの'},
    "rule_note_viewed": {"en": 'grad at the viewed elements', "ja": 'ビューの要素の位置の grad'},
    "rule_note_copies": {"en": 'grad summed over the copies', "ja": 'コピー全体で和を取った grad'},
    "rule_note_reduced": {"en": ' reduced', "ja": '（損失と同じように集約）'},   # after nll_reduced, which holds it
    "trace_rule": {"en": "rule for {input}: {formula}  →  sends to {target}:",
                   "ja": "{input} の規則: {formula}  →  {target} へ送る:"},
    "trace_grad_empty": {"en": ".grad was empty: it becomes this gradient", "ja": ".grad は空でした: この勾配がそのまま入ります"},
    "trace_grad_sum": {"en": ".grad accumulates: before + this gradient =", "ja": ".grad に足し込まれます: 前の値 + この勾配 ="},
    # finite differences
    "fd_title": {"en": "finite-difference check for {x}", "ja": "{x} の有限差分による確認"},
    "fd_too_large": {"en": "{x}: too many elements for a finite-difference check",
                     "ja": "{x}: 要素が多すぎるため有限差分による確認は省きます"},
    "fd_batched": {"en": "{x}: not checked by finite differences here: {api} returned a whole Jacobian, which the VJP "
                         "tab compares with the one built from the graph",
                   "ja": "{x}: ここでは有限差分で確かめません。{api} はヤコビ行列全体を返したので、VJP タブでグラフから"
                         "組み立てたものと比べています"},
    "fd_engine": {"en": "engine (this call)", "ja": "エンジン（この呼び出し）"},
    "fd_central": {"en": "central differences (float64)", "ja": "中心差分（float64）"},
    "fd_at_values": {"en": "at the values {x} had when this backward call ran",
                     "ja": "この backward 呼び出しの時点の {x} の値で"},
    "fd_agrees": {"en": "largest difference {diff} — agrees", "ja": "最大の差 {diff} — 一致"},
    "fd_disagrees": {"en": "largest difference {diff} — disagrees (a kink such as relu or abs at 0, a custom backward "
                           "that is not the derivative on purpose, like a straight-through estimator, or a bug)",
                     "ja": "最大の差 {diff} — 不一致（relu や abs が 0 で折れ曲がる点のようなところか、ストレート・スルー推定量の"
                           "ようにわざと導関数と違う自作の backward か、バグ）"},
    "fd_hooked": {"en": "largest difference {diff} — differs: hooks changed the gradient during backward, and finite "
                        "differences see only the function",
                  "ja": "最大の差 {diff} — 不一致: backward の途中でフックが勾配を変えました。有限差分が見るのは関数そのものです"},
    "fd_nonfinite": {"en": "the gradient has nan or infinite entries, so differences cannot confirm it",
                     "ja": "勾配に nan や無限大が含まれるため、有限差分では確認できません"},
    # the whole report (CLI)
    "panel_jacobian": {"en": "Jacobian", "ja": "ヤコビ行列"},
    "panel_vjp": {"en": "vector-Jacobian product (VJP)", "ja": "ベクトル・ヤコビ行列積 (VJP)"},
    "panel_chain": {"en": "chain rule", "ja": "連鎖律"},
    "panel_graph": {"en": "computation graph (output → leaves)", "ja": "計算グラフ（出力 → 葉テンソル）"},
    "panel_trace": {"en": "backward, node by node", "ja": "逆伝播をノードごとに"},
    "panel_fd": {"en": "finite-difference check", "ja": "有限差分による確認"},
    "printed": {"en": "what the program printed", "ja": "プログラムの出力"},
    "no_backward": {"en": "The program made no backward call, so there is no gradient to explain.",
                    "ja": "このプログラムは backward を呼ばないので、説明する勾配はありません。"},
    "program_failed": {"en": "The program failed:", "ja": "プログラムはエラーで終了しました:"},
    "explanation_failed": {"en": "The explanation could not be worked out:", "ja": "解説を計算できませんでした:"},
    # symbolic limits
    # symbolic limits: the reason why there is no symbolic form (shown after "numbers only:")
    "limit_nodes": {"en": "the graph has {count} nodes, more than the {limit} the symbolic form handles",
                    "ja": "計算グラフのノードが {count} 個あり、記号計算で扱える {limit} 個を超えています"},
    "limit_entries": {"en": "the Jacobian has {count} entries, more than the {limit} the symbolic form handles",
                      "ja": "ヤコビ行列の成分が {count} 個あり、記号計算で扱える {limit} 個を超えています"},
    "limit_time": {"en": "the symbolic form took longer than {seconds} s",
                   "ja": "記号での計算が {seconds} 秒を超えました"},
    "limit_custom": {"en": "{node} is a custom autograd.Function, whose backward is code, not a formula",
                     "ja": "{node} は自作の autograd.Function で、その backward は式ではなくコードです"},
    "limit_module_hook": {"en": "a module's backward hook runs inside this graph, and a hook is code, not a formula",
                          "ja": "この計算グラフの中でモジュールの逆伝播フックが動きます。フックは式ではなくコードです"},
    # (what the tutor cannot do, not a fact about the op: sqrt or norm had no formula here once, yet have one)
    "limit_unsupported": {"en": "the tutor cannot write {op} with symbols",
                          "ja": "このチューターは {op} を記号の式で書けません"},
    "limit_unsupported_other": {"en": "the tutor cannot write an operation of this graph with symbols",
                                "ja": "このチューターはこの計算グラフのある演算を記号の式で書けません"},
    # a panel kept as the sandbox's data until it is shown (engine.sandbox.renderables.Deferred)
    "unreadable_panel": {"en": "This part of the explanation could not be read back from the sandbox.",
                         "ja": "説明のこの部分はサンドボックスから読み戻せませんでした。"},
    # dual numbers (torch.autograd.forward_ad), op by op (branch forward)
    "api_dual": {"en": "dual numbers (torch.autograd.forward_ad): every op carried a tangent forward beside its value, "
                       "and unpack_dual read {y}'s tangent, J·t",
                 "ja": "二重数（torch.autograd.forward_ad）: 各演算が値と並べて接ベクトルを前へ運び、unpack_dual が {y} の"
                       "接ベクトル J·t を読み出しました"},
    "t_dual": {"en": "t is the tangent given to fwAD.make_dual(…): the direction the input moves in",
               "ja": "t は fwAD.make_dual(…) に渡した接ベクトルで、入力を動かす向きです"},
    "jvp_check_dual": {"en": "{mark} J·t equals the tangent unpack_dual({y}) read",
                       "ja": "{mark} J·t は unpack_dual({y}) で読み出した接ベクトルと一致します"},
    "jvp_check_dual_bad": {"en": "{mark} J·t differs from the tangent unpack_dual({y}) read",
                           "ja": "{mark} J·t は unpack_dual({y}) で読み出した接ベクトルと一致しません"},
    "dual_unknown": {"en": "{y}'s tangent did not come only from ops that carry tangents forward (a custom Function's "
                           "jvp, or fill_ or zero_, wrote part of it), so its steps cannot be followed: not explained",
                     "ja": "{y} の接ベクトルは、接ベクトルを前へ運ぶ演算だけから来たものではありません（自作の Function の "
                           "jvp や fill_、zero_ が一部を書きました）。そのため手順をたどれず、説明しません"},
    "dual_too_large": {"en": "the Jacobian of {y} would have {entries} entries, too many to build: not explained",
                       "ja": "{y} のヤコビ行列は成分が {entries} 個になり、作るには多すぎるため説明しません"},
    "dual_too_long": {"en": "forward mode took more steps before {y}'s tangent was read than an explanation keeps "
                            "copies of: not explained",
                      "ja": "{y} の接ベクトルを読み出すまでの順モードの手順が、解説で写しを保存できる量を超えたため、"
                            "説明しません"},
    "panel_tangents": {"en": "forward mode, op by op", "ja": "順モードを演算ごとに"},
    "tangent_title": {"en": "op {index} of {total}: {label}", "ja": "演算 {index} / {total}: {label}"},
    "tangent_call": {"en": "forward-mode call {call} (line {line}), ", "ja": "順モードの呼び出し {call}（{line} 行目）、"},
    "tangent_in": {"en": "{input} = {label}, its tangent coming in:", "ja": "{input} = {label} から入る接ベクトル:"},
    "tangent_constant": {"en": "{input} = {label}: a constant, no tangent",
                         "ja": "{input} = {label}: 定数なので接ベクトルはありません"},
    "tangent_rule": {"en": "  rule for {input}: {formula}", "ja": "  {input} の規則: {formula}"},
    "tangent_rules_note": {"en": "the rules are written for backward (grad: the gradient arriving); forward mode applies "
                                 "the same local derivatives to the tangents",
                           "ja": "規則は逆伝播用の書き方です（grad は届く勾配）。順モードは同じ局所的な微分を接ベクトルに"
                                 "掛けます"},
    "tangent_value": {"en": "value =", "ja": "値 ="},
    "tangent_out": {"en": "tangent going out (each input's local derivative applied to its tangent, summed):",
                    "ja": "出ていく接ベクトル（入力ごとに局所的な微分を接ベクトルに掛けて足したもの）:"},
    "tangent_fd": {"en": "{mark} equals the finite difference along t at this op (largest difference {diff})",
                   "ja": "{mark} この演算での t 方向の有限差分と一致します（最大の差 {diff}）"},
    "tangent_fd_bad": {"en": "{mark} differs from the finite difference along t at this op (largest difference {diff}: "
                             "a kink such as relu or abs at 0, or a bug)",
                       "ja": "{mark} この演算での t 方向の有限差分と一致しません（最大の差 {diff}。relu や abs が 0 で"
                             "折れ曲がる点のようなところか、バグ）"},
    "tangent_step": {"en": "op {index}: {op}", "ja": "演算 {index}: {op}"},
    # a module's full backward hooks (register_full_backward_hook, register_full_backward_pre_hook)
    "module_hooked": {"en": "a module's backward hook ran inside this backward: J and vᵀJ here are what backward "
                            "computed through it, which is the function's own only if the hook left the gradient "
                            "as it was (the finite-difference check compares with the function)",
                      "ja": "この backward の中でモジュールの逆伝播フックが動きました。ここの J と vᵀJ はフックを通して "
                            "backward が計算した値で、フックが勾配を変えなかったときだけ関数そのものの値です（有限差分"
                            "による確認が関数と比べます）"},
    "trace_module_hook": {"en": "a module's backward hook (register_full_backward_hook) runs at this node: gradients "
                                "it returns flow on instead of the ones computed (returning None changes nothing)",
                          "ja": "このノードでモジュールの逆伝播フック（register_full_backward_hook）が動きます。フックが"
                                "勾配を返すと、計算された勾配の代わりにそれが先へ流れます（None を返せば何も変わりません）"},
    # the runner's and the sandbox's reasons (engine.runner.errors.reason; shown by SnippetError.said)
    "error_at_line": {"en": "line {line}: ", "ja": "{line} 行目: "},
    "program_raised": {"en": "{error}", "ja": "プログラムが例外を出しました（Python・PyTorch のメッセージをそのまま示します）: {error}"},
    "refused_for_safety": {"en": " (refused for safety)", "ja": "（安全のため実行しません）"},
    "source_too_long": {"en": "the snippet has {length} characters; the limit is {limit}",
                        "ja": "スニペットが {length} 文字あります。上限は {limit} 文字です"},
    "file_too_large": {"en": "the file is larger than the limit of {limit} characters",
                       "ja": "ファイルが上限の {limit} 文字を超えています"},
    "nested_too_deep": {"en": "the code is nested too deeply to run", "ja": "コードの入れ子が深すぎて実行できません"},
    "calls_too_deep": {"en": "the calls went too deep (endless recursion?)",
                       "ja": "呼び出しが深くなりすぎました（終わらない再帰ではありませんか？）"},
    "out_of_memory": {"en": "the snippet ran out of memory", "ja": "スニペットがメモリを使い果たしました"},
    "too_many_steps": {"en": "the snippet ran more than {limit} steps (loop iterations and calls); is there an endless "
                             "loop?",
                       "ja": "スニペットが {limit} ステップ（ループの繰り返しと呼び出しの回数）を超えました。終わらない"
                             "ループはありませんか？"},
    "ran_too_long": {"en": "the snippet ran longer than {seconds} s", "ja": "スニペットの実行が {seconds} 秒を超えました"},
    "too_much_memory": {"en": "the snippet used more than {mb} MB of memory",
                        "ja": "スニペットが {mb} MB を超えるメモリを使いました"},
    "tensors_too_much_memory": {"en": "the snippet's tensors take more than {mb} MB of memory together",
                                "ja": "スニペットのテンソルが合わせて {mb} MB を超えるメモリを使っています"},
    "too_deep": {"en": "functions called each other more than {limit} levels deep (endless recursion?)",
                 "ja": "関数の呼び出しが {limit} 段を超えて深くなりました（終わらない再帰ではありませんか？）"},
    "printed_too_much": {"en": "the snippet printed more than {limit} characters",
                         "ja": "スニペットが {limit} 文字を超えて出力しました"},
    "integer_too_long": {"en": "this integer would have about {digits} digits; the limit is {limit}",
                         "ja": "この整数は約 {digits} 桁になります。上限は {limit} 桁です"},
    "literal_too_long": {"en": "a literal of {length} characters is longer than the limit of {limit}",
                         "ja": "{length} 文字のリテラルは上限の {limit} 文字を超えています"},
    "syntax_not_supported": {"en": "{name} syntax is not supported in snippets",
                             "ja": "{name} の構文はスニペットでは使えません"},
    "try_star_not_supported": {"en": "try/except is not supported in snippets", "ja": "try/except* はスニペットでは使えません"},
    "async_not_supported": {"en": "async code is not supported in snippets", "ja": "async のコードはスニペットでは使えません"},
    "walrus_not_supported": {"en": "the := operator is not supported in snippets",
                             "ja": ":= 演算子はスニペットでは使えません"},
    "match_not_supported": {"en": "match statements are not supported in snippets",
                            "ja": "match 文はスニペットでは使えません"},
    "literal_not_supported": {"en": "this kind of literal is not supported in snippets",
                              "ja": "この種類のリテラルはスニペットでは使えません"},
    "import_only_torch": {"en": "only `import torch` and `import math` are available in snippets, not `import {name}`",
                          "ja": "スニペットで使えるのは `import torch` と `import math` だけです（`import {name}` は使えません）"},
    "import_from_only_torch": {"en": "only imports from torch are available in snippets, not from {name}",
                               "ja": "スニペットでは torch からしか import できません（{name} からは使えません）"},
    "math_name_unavailable": {"en": "`math.{name}` is not available in snippets",
                              "ja": "`math.{name}` はスニペットでは使えません"},
    "math_attribute_unavailable": {"en": "'math.{name}' is not available in snippets",
                                   "ja": "'math.{name}' はスニペットでは使えません"},
    "module_unavailable": {"en": "`{name}` is not available in snippets", "ja": "`{name}` はスニペットでは使えません"},
    "not_in_tutor_torch": {"en": "`{name}` is not part of the torch API this tutor provides (what it provides: "
                                 "docs/api.md)",
                           "ja": "`{name}` はこのチューターの torch にはありません（使える API は docs/api.md にあります）"},
    "attribute_not_in_tutor_torch": {"en": "'{name}' is not part of the torch API this tutor provides (what it provides: "
                                           "docs/api.md)",
                                     "ja": "'{name}' はこのチューターの torch にはありません（使える API は docs/api.md "
                                           "にあります）"},
    "dunder_internal": {"en": "'{name}': names starting with '__' are internals and not available in snippets",
                        "ja": "'{name}': '__' で始まる名前は内部用で、スニペットでは使えません"},
    "dunder_unavailable": {"en": "'{name}': names starting with '__' are not available in snippets",
                           "ja": "'{name}': '__' で始まる名前はスニペットでは使えません"},
    "private_internal": {"en": "'{name}': names starting with '_' are internals and not available in snippets",
                         "ja": "'{name}': '_' で始まる名前は内部用で、スニペットでは使えません"},
    "builtin_unavailable": {"en": "'{name}' is not available in snippets", "ja": "'{name}' はスニペットでは使えません"},
    "call_not_allowed": {"en": "calling {what} is not allowed in snippets", "ja": "{what} の呼び出しはスニペットでは使えません"},
    "attribute_of_unavailable": {"en": "'.{name}' of a {kind} is not available in snippets",
                                 "ja": "{kind} の '.{name}' はスニペットでは使えません"},
    "numpy_attribute_unavailable": {"en": "numpy's '.{name}' is not available in snippets",
                                    "ja": "numpy の '.{name}' はスニペットでは使えません"},
    "context_managers_only_torch": {"en": "only torch's context managers (such as `with torch.no_grad():`) are supported",
                                    "ja": "使える with は torch のコンテキストマネージャー（`with torch.no_grad():` など）"
                                          "だけです"},
    "raise_refused": {"en": "raising {name} is refused for safety (the runner stops snippets with it)",
                      "ja": "{name} を raise することは安全のためできません（ランナーがスニペットを止めるのに使います）"},
    "worker_cannot_start": {"en": "the tutor's snippet worker could not start: {cause}",
                            "ja": "チューターのスニペット実行プロセスを起動できませんでした: {cause}"},
    "worker_not_runnable": {"en": "{program} cannot be run ({detail})", "ja": "{program} を実行できません（{detail}）"},
    "worker_signal": {"en": "it was stopped by signal {signal}", "ja": "シグナル {signal} で止まりました"},
    "worker_exit_status": {"en": "it exited with status {status} without saying why",
                           "ja": "理由を告げずに終了コード {status} で終わりました"},
    "worker_not_ready": {"en": "it did not get ready within {seconds} s", "ja": "{seconds} 秒以内に準備ができませんでした"},
    "worker_stopped_answering": {"en": "the tutor's snippet worker stopped answering",
                                 "ja": "チューターのスニペット実行プロセスが応答しなくなりました"},
    "call_cancelled": {"en": "the call was cancelled", "ja": "呼び出しは取り消されました"},
    "no_value_came_back": {"en": "no value came back", "ja": "値が返ってきませんでした"},
    "snippet_past_time_limit": {"en": "the snippet ran past its time limit and was stopped",
                                "ja": "スニペットが制限時間を超えたので止めました"},
    "snippet_cpu_time": {"en": "the snippet used more processor time than allowed",
                         "ja": "スニペットが許された CPU 時間を超えて使いました"},
    "snippet_killed": {"en": "the snippet was stopped (out of time or memory)",
                       "ja": "スニペットを止めました（時間かメモリが足りなくなりました）"},
    "snippet_system_call": {"en": "the snippet made a system call the sandbox forbids",
                            "ja": "スニペットがサンドボックスで禁止されたシステムコールを使いました"},
    "snippet_process_died": {"en": "the snippet's process died (signal {signal})",
                             "ja": "スニペットのプロセスが異常終了しました（シグナル {signal}）"},
    "snippet_no_answer": {"en": "the snippet's process ended without an answer",
                          "ja": "スニペットのプロセスが結果を返さずに終わりました"},
    "result_too_large": {"en": "the answer was larger than {mb} MB", "ja": "結果が {mb} MB を超えました"},
    "explanation_stopped": {"en": "working out the explanation was stopped by the sandbox's limits ({seconds} s, "
                                  "{mb} MB): {cause}",
                            "ja": "解説の計算がサンドボックスの制限（{seconds} 秒、{mb} MB）で止まりました: {cause}"},
    "explanation_own_fault": {"en": "the tutor could not work out this explanation (its own fault, not the "
                                    "program's): {error}",
                              "ja": "チューターがこの解説を計算できませんでした（プログラムではなくチューターの不具合です）: {error}"},
    "explanation_unreadable": {"en": "the explanation could not be read back from the sandbox",
                               "ja": "サンドボックスから解説を読み戻せませんでした"},
    "tutor_closed": {"en": "the tutor closed", "ja": "チューターが終了しました"},
    "no_longer_needed": {"en": "cancelled: the tutor no longer needs this answer",
                         "ja": "取り消しました: チューターはもうこの結果を必要としていません"},
    "too_many_bytes": {"en": "{what} would have {count} elements ({size}); the limit is {limit} per tensor",
        "ja": "{what}の要素数は {count}（{size}）になります。上限はテンソル 1 個あたり {limit} です"},
    "too_many_elements": {"en": "{what} would have {count} elements; the limit is {limit} per tensor",
        "ja": "{what}の要素数は {count} になります。上限はテンソル 1 個あたり {limit} 個です"},
    "too_much_product_work": {"en": "{what} would take {work} multiply-adds; the limit is {limit}",
        "ja": "{what}には {work} 回の積和が必要です。上限は {limit} 回です"},
    "too_many_items": {"en": "{what} would have length {count}; the limit is {limit}",
        "ja": "{what}の長さは {count} になります。上限は {limit} です"},
    "too_much_call_work": {"en": "{what} would visit more than {limit} elements; refused for safety",
        "ja": "{what}は {limit} 個を超える要素をたどるので、安全のため実行しません"},
    "text_too_long": {"en": "{what} would be longer than {limit} characters; refused for safety",
        "ja": "{what}は {limit} 文字を超えるので、安全のため実行しません"},
    "star_width_not_supported": {"en": "'*' widths in %-formatting are not supported in snippets",
        "ja": "%-書式の '*' による幅指定はスニペットでは使えません"},
    "format_width_too_large": {"en": "the width or precision {number} in a format is larger than {limit}",
        "ja": "書式の幅または精度 {number} が上限の {limit} を超えています"},
    "new_dtype_refused": {"en": "new dtypes cannot be made in snippets; use torch.float32, torch.float64, ...",
        "ja": "スニペットでは新しい dtype を作れません。torch.float32 や torch.float64 などを使ってください"},
    "foreign_builtins": {"en": "this function's builtins are not the runner's; running it is refused for safety",
        "ja": "この関数の組み込み関数はランナーのものではないので、安全のため実行しません"},
    "callback_refused": {"en": "passing {what} to {to} as a function to call is refused for safety in snippets (pass your own function or a lambda)",
        "ja": "{what} を呼び出す関数として {to} に渡すことは、安全のためスニペットではできません（自分で定義した関数か lambda を渡してください）"},
    "type_three_arguments": {"en": "type() with three arguments makes a new class; it is refused for safety",
        "ja": "引数 3 つの type() は新しいクラスを作るので、安全のため実行しません"},
    "round_digits": {"en": "round() to {digits} digits is beyond the limit",
        "ja": "{digits} 桁への round() は上限を超えています"},
    "sum_start_not_number": {"en": "sum() with a start value that is not a number is not supported",
        "ja": "数でない開始値を渡した sum() は使えません"},
    "type_of_internal": {"en": "type() of a {kind} object is an engine internal and refused for safety",
        "ja": "{kind} オブジェクトの type() はエンジン内部のものなので、安全のため実行しません"},
    "astype_refused": {"en": "astype to the numpy dtype {dtype} is refused for safety (only numeric and bool dtypes)",
        "ja": "numpy の dtype {dtype} への astype は安全のため実行しません（数値と bool の dtype だけ使えます）"},
    "math_prod_work": {"en": "math.prod() of these tensors would take {work} multiplications; the limit is {limit}",
        "ja": "これらのテンソルの math.prod() には {work} 回の乗算が必要です。上限は {limit} 回です"},
    "printoption_too_large": {"en": "set_printoptions({option}) is above {cap}; larger values are refused for safety in snippets",
        "ja": "set_printoptions({option}) は上限の {cap} を超えています。大きな値は安全のためスニペットでは使えません"},
    "numpy_out_refused": {"en": "more than {count} positional arguments to numpy's '.{name}' (its `out`) are refused for safety in snippets",
        "ja": "numpy の '.{name}' に {count} 個を超える位置引数（`out`）を渡すことは、安全のためスニペットではできません"},
    "numpy_argument_refused": {"en": "the argument {argument}= of numpy's '.{name}' is refused for safety in snippets",
        "ja": "numpy の '.{name}' の引数 {argument}= は安全のためスニペットでは使えません"},
    "class_statement_unsupported": {"en": "this class statement is outside what snippets support",
        "ja": "この class 文はスニペットで使える範囲を超えています"},
    "class_base_refused": {"en": "a class in a snippet derives from torch.autograd.Function, torch.nn.Module or a class the snippet defined earlier (or nothing), not from {base}",
        "ja": "スニペットのクラスが継承できるのは torch.autograd.Function、torch.nn.Module、スニペットで先に定義したクラスだけです（継承しなくても構いません）。{base} は継承できません"},
    "class_descriptor_refused": {"en": "'{member}' is a value that Python would call from the class (a descriptor); a class attribute in a snippet is a method or a plain value",
        "ja": "'{member}' は Python がクラスから呼び出す値（ディスクリプター）です。スニペットのクラス属性はメソッドか普通の値にしてください"},
    "class_override_refused": {"en": "'{member}' would replace torch's own '{own}' of {base}; a class in a snippet may define {allowed} and methods of its own",
        "ja": "'{member}' は {base} の torch 自身の '{own}' を置き換えてしまいます。スニペットのクラスで定義できるのは {allowed} と独自のメソッドです"},
    "staticmethod_own_only": {"en": "@staticmethod applies to the snippet's own methods only",
        "ja": "@staticmethod はスニペット自身のメソッドにだけ使えます"},
    "super_own_only": {"en": "super() is supported in the methods of the snippet's classes only",
        "ja": "super() はスニペットのクラスのメソッドの中でだけ使えます"},
    "assign_attribute_refused": {"en": "only attributes of tensors, of a Function's ctx, of instances of the snippet's classes and of its plain classes can be assigned in snippets (`x.{name} = ...`)",
        "ja": "スニペットで代入できる属性は、テンソル、Function の ctx、スニペットのクラスのインスタンス、スニペットの普通のクラスのものだけです（`x.{name} = ...`）"},
    "assign_torch_attribute": {"en": "'{name}' is torch's own attribute of {kind}; assigning it is refused for safety (choose another name)",
        "ja": "'{name}' は {kind} の torch 自身の属性なので、安全のため代入できません（別の名前にしてください）"},
    "print_file_unavailable": {"en": "print(file=...) is not available in snippets",
        "ja": "print(file=...) はスニペットでは使えません"},
    "format_lookup_refused": {"en": "the field {field} in str.format looks up an attribute or an item; such lookups are refused for safety (pass the value itself)",
        "ja": "str.format のフィールド {field} は属性か要素を参照します。この参照は安全のためできません（値そのものを渡してください）"},
    "type_attributes_unavailable": {"en": "attributes of the type {kind} are not available in snippets",
        "ja": "型 {kind} の属性はスニペットでは使えません"},
    "node_class_attribute_unavailable": {"en": "'.{name}' of a graph node's class is not available in snippets",
        "ja": "グラフのノードのクラスの '.{name}' はスニペットでは使えません"},
    "class_attribute_unavailable": {"en": "'.{name}' of a class is not available in snippets",
        "ja": "クラスの '.{name}' はスニペットでは使えません"},
    "node_attribute_unavailable": {"en": "'.{name}' of a graph node is not available in snippets",
        "ja": "グラフのノードの '.{name}' はスニペットでは使えません"},
    "array_dtype_refused": {"en": "arrays of dtype {dtype} (not numbers) are refused for safety in snippets",
        "ja": "dtype {dtype} の配列（数ではない）は安全のためスニペットでは使えません"},
    "dtype_refused": {"en": "dtype={dtype} is not a numeric dtype; other dtypes are refused for safety in snippets",
        "ja": "dtype={dtype} は数値の dtype ではありません。数値以外の dtype は安全のためスニペットでは使えません"},
    "module_value_unavailable": {"en": "the module {name} is not available",
        "ja": "モジュール {name} は使えません"},
    "function_not_engine": {"en": "the function {name} is not part of the engine's API",
        "ja": "関数 {name} はエンジンの API にはありません"},
    "type_value_unavailable": {"en": "the type {name} is not available in snippets",
        "ja": "型 {name} はスニペットでは使えません"},
    "interpreter_internals": {"en": "interpreter internals are not available in snippets",
        "ja": "インタープリターの内部はスニペットでは使えません"},
    "cannot_be_read": {"en": "the snippet cannot be read: {error}",
        "ja": "スニペットを読めません: {error}"},
    "nested_too_deep_to_read": {"en": "the code is nested too deeply to be read",
        "ja": "コードの入れ子が深すぎて読めません"},
    "nested_levels": {"en": "the code is nested more than {limit} levels deep",
        "ja": "コードの入れ子が {limit} 段を超えています"},
    "dunder_binding": {"en": "'{name}' as {what}: names starting with '__' are internals of the runner and refused for safety",
        "ja": "{what}としての '{name}': '__' で始まる名前はランナーの内部用なので、安全のため使えません"},
    "class_top_level_only": {"en": "classes can be defined only at the top level of a snippet (not inside a function, a block or another class)",
        "ja": "クラスはスニペットの一番外側でだけ定義できます（関数、ブロック、別のクラスの中では定義できません）"},
    "class_decorators_unsupported": {"en": "decorators on a class are not supported in snippets",
        "ja": "クラスのデコレーターはスニペットでは使えません"},
    "class_keywords_unsupported": {"en": "class keywords such as metaclass= are not supported in snippets",
        "ja": "metaclass= などのクラスのキーワードはスニペットでは使えません"},
    "class_bases_rule": {"en": "a class in a snippet has at most one base, torch.autograd.Function, torch.nn.Module or a class defined earlier in the snippet, named plainly (`class Net(nn.Module):`, `class Config:`)",
        "ja": "スニペットのクラスの基底は 1 つまでで、torch.autograd.Function、torch.nn.Module、スニペットで先に定義したクラスのどれかを名前で書きます（`class Net(nn.Module):`、`class Config:`）"},
    "class_attribute_form": {"en": "a class attribute in a snippet is set as `name = value`",
        "ja": "スニペットのクラス属性は `name = value` と書いて設定します"},
    "class_attribute_private": {"en": "'{name}': class attributes starting with '_' are not available in snippets",
        "ja": "'{name}': '_' で始まるクラス属性はスニペットでは使えません"},
    "class_body_rule": {"en": "a class body in a snippet holds only methods (def), a docstring and attributes such as `hidden = 4`",
        "ja": "スニペットのクラスの本体に書けるのは、メソッド（def）、docstring、`hidden = 4` のような属性だけです"},
    "class_method_name": {"en": "'{name}': of Python's special methods a class in a snippet may define only __init__, and no method name starts with '_'",
        "ja": "'{name}': スニペットのクラスで定義できる Python の特殊メソッドは __init__ だけで、'_' で始まる名前のメソッドは定義できません"},
    "with_as_single": {"en": "`with ... as` must name a single variable",
        "ja": "`with ... as` には変数を 1 つだけ書きます"},
    "del_forms": {"en": "only `del name`, `del x[i]` and `del x.attr` are supported in snippets",
        "ja": "スニペットで使える del は `del name`、`del x[i]`、`del x.attr` だけです"},
    "plain_target": {"en": "the variable of {where} must be a plain name (or a tuple of names)",
        "ja": "{where}の変数は普通の名前（または名前のタプル）にしてください"},
    "super_forms": {"en": "super() is supported as `super().__init__(...)`, `super().method(...)` or `super(Net, self).method(...)` directly in a method of a class (not in a nested function)",
        "ja": "super() は、クラスのメソッドの中で直接（入れ子の関数の中ではなく）`super().__init__(...)`、`super().method(...)`、`super(Net, self).method(...)` と書いて使えます"},
    "assign_into_array": {"en": "assigning a {kind} into a numpy array is refused for safety in snippets",
        "ja": "numpy 配列に {kind} を代入することは、安全のためスニペットではできません"},
    "what_tensor": {"en": "a tensor",
        "ja": "テンソル"},
    "what_result_of": {"en": "the result of {op}",
        "ja": "{op} の結果"},
    "what_result_of_indexing": {"en": "the result of indexing",
        "ja": "インデックス参照の結果"},
    "what_result_of_comparison": {"en": "the result of a comparison",
        "ja": "比較の結果"},
    "what_repeated": {"en": "a repeated {kind}",
        "ja": "繰り返した {kind} "},
    "what_a": {"en": "a {kind}",
        "ja": "{kind} "},
    "what_joining": {"en": "joining {count} tensors",
        "ja": "{count} 個のテンソルの連結"},
    "what_call_of_value": {"en": "{call} of this value",
        "ja": "この値の {call} "},
    "what_call_of_values": {"en": "{call} of these values",
        "ja": "これらの値の {call} "},
    "what_matrix_product": {"en": "the matrix product",
        "ja": "行列積"},
    "what_hashing": {"en": "hashing this tuple",
        "ja": "このタプルのハッシュ計算"},
    "what_this": {"en": "this {thing}",
        "ja": "この {thing} "},
    "what_comparison": {"en": "this comparison",
        "ja": "この比較"},
    "what_unpacked": {"en": "the unpacked {kind}",
        "ja": "展開した {kind} "},
    "what_name_of": {"en": "a {kind} name",
        "ja": "{kind} の名前"},
    "what_import_alias": {"en": "an import alias", "ja": "import の別名"},
    "what_except_as": {"en": "`except ... as`", "ja": "`except ... as` の名前"},
    "what_comprehension": {"en": "a comprehension",
        "ja": "内包表記"},
    "what_for_loop": {"en": "a for loop",
        "ja": "for ループ"},
}

register(__name__, MESSAGES)


def rule_text(formula: str, lang: str = "en") -> str:
    """An op's rule formula (engine/ops) in `lang`: the code stays as it is, its prose notes (`(/ N for 'mean')`,
    `0 where exponent == 0`) are the catalogue's `rule_note_*` in that language."""
    for key, entry in MESSAGES.items():
        if key.startswith("rule_note_") and lang in entry:
            formula = formula.replace(entry["en"], entry[lang])
    return formula
