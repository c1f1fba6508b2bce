"""`evaltui plan` for every design, through `evaltui.cli.main.main`: numbers, JSON and exit codes.

The numbers are those of tests/core/stats/test_power_designs.py (R 4.2.2 power.t.test, Kish's design
effect, the reading list's 002 and 004); here they are checked as the command prints them.
"""

from __future__ import annotations

import json

import pytest

from evaltui.cli.main import main


def run(capsys, *args):
    code = main(["plan", *(str(a) for a in args)])
    out, err = capsys.readouterr()
    return code, out, err


def plan_json(capsys, *args):
    code, out, err = run(capsys, *args, "--format", "json")
    assert code == 0, err
    return json.loads(out)


# ============================================================================================
# The pass/fail form keeps working as it did
# ============================================================================================


def test_pass_fail_text_is_unchanged(capsys):
    code, out, _ = run(capsys, "--baseline-rate", "0.9", "--delta", "0.05", "--discordance", "0.15")
    assert code == 0
    assert out == (
        "To detect +5.0 pts at alpha 0.05 with 80% power, expecting 15% disagreement:\n"
        "  paired design:      469 items (938 model runs; raw 468.6, exact-psi)\n"
        "  independent design: 435 items per arm, 870 in all (870 model runs) at a 90% baseline\n"
    )


def test_pass_fail_json_keeps_its_fields_and_names_the_design(capsys):
    plan = plan_json(capsys, "--baseline-rate", "0.9", "--delta", "-0.05", "--discordance", "0.15")
    assert plan["design"] == "pass-fail"
    assert (plan["paired_n"], plan["independent_n_per_arm"]) == (469, 686)


def test_pass_fail_without_a_baseline_rate_plans_the_paired_design_only(capsys):
    code, out, _ = run(capsys, "--delta", "0.05", "--discordance", "0.15")
    assert code == 0 and "469 items" in out and "independent" not in out


# ============================================================================================
# graded
# ============================================================================================


def test_graded_prints_the_t_count_as_r_and_the_normal_count(capsys):
    # R: power.t.test(delta = 0.05, sd = 0.2, power = 0.8, type = "paired") -> n = 127.516
    code, out, _ = run(capsys, "--design", "graded", "--delta", "0.05", "--sd", "0.2")
    assert code == 0
    assert "paired t test:        128 items (256 model runs; raw 127.52" in out
    assert "normal approximation: 126 items (raw 125.58)" in out


def test_graded_json(capsys):
    plan = plan_json(capsys, "--design", "graded", "--delta", "0.5", "--sd", "1")
    assert plan["design"] == "graded"
    assert plan["items_raw"] == pytest.approx(33.3672039788038, rel=1e-9)  # R's power.t.test
    assert (plan["items"], plan["normal_items"], plan["warnings"]) == (34, 32, [])


def test_graded_plan_under_30_items_warns_in_text_and_json(capsys):
    code, out, _ = run(capsys, "--design", "graded", "--delta", "1", "--sd", "1")
    assert code == 0 and "warning: 10 items is fewer than 30" in out
    assert plan_json(capsys, "--design", "graded", "--delta", "1", "--sd", "1")["warnings"]


# ============================================================================================
# epochs
# ============================================================================================

EPOCH_ARGS = ("--design", "epochs", "--delta", "0.1", "--sd-between", "0.2", "--sd-within", "0.3")


def test_epochs_given_the_epochs_plans_the_items(capsys):
    code, out, _ = run(capsys, *EPOCH_ARGS, "--epochs", "3")
    assert code == 0
    assert "with 3 epochs per item: 81 items (486 model runs; raw 80.43 items, normal 79" in out
    assert "epoch noise is 60% of the per-item delta variance" in out
    assert "no number of epochs needs fewer than 34 items" in out
    assert "beyond 12 epochs per item" in out


def test_epochs_given_the_items_plans_the_epochs(capsys):
    # R: power.t.test(n = 60, delta = 0.1, power = 0.8, sd = NULL) -> sd 0.27196; K = 6
    plan = plan_json(capsys, *EPOCH_ARGS, "--items", "60")
    assert (plan["solved"], plan["items"], plan["epochs"]) == ("epochs", 60, 6)
    assert plan["sd_delta_max"] == pytest.approx(0.271957314597593, rel=1e-9)
    assert plan["model_runs"] == 2 * 60 * 6
    code, out, _ = run(capsys, *EPOCH_ARGS, "--items", "60")
    assert "with 60 items: 6 epochs per item" in out


def test_epochs_too_few_items_for_any_epochs_exit_2_in_one_line(capsys):
    code, out, err = run(capsys, *EPOCH_ARGS, "--items", "30")
    assert code == 2 and out == ""
    assert err.count("\n") == 1
    assert "30 items cannot detect +0.1 at 80% power with any number of epochs" in err


# ============================================================================================
# clustered
# ============================================================================================


def test_clustered_over_pass_fail_with_an_icc(capsys):
    code, out, _ = run(
        capsys,
        *("--design", "clustered", "--delta", "0.06", "--discordance", "0.15"),
        *("--cluster-size", "6", "--icc", "0.1"),
    )
    assert code == 0
    assert "design effect 1.5: 1 + (6 - 1) x ICC 0.1 (Kish)" in out
    assert "clustered items:    488 items in 82 clusters of 6 (976 model runs" in out


def test_clustered_with_the_design_effect_a_report_prints(capsys):
    plan = plan_json(
        capsys,
        *("--design", "clustered", "--delta", "0.06", "--discordance", "0.15"),
        *("--design-effect", "1.3393", "--cluster-size", "6"),
    )
    assert (plan["design"], plan["items"], plan["clusters"]) == ("clustered", 435, 73)
    assert plan["base"]["paired_n"] == 325
    assert plan["icc"] == pytest.approx(0.06786, abs=1e-5)


def test_clustered_over_graded_warns_when_too_few_clusters_for_a_verdict(capsys):
    args = ("--design", "clustered", "--delta", "0.5", "--sd", "1", "--cluster-size", "10")
    code, out, _ = run(capsys, *args, "--icc", "0.1")
    assert code == 0
    assert "64 items in 7 clusters of 10" in out
    assert "warning: 7 clusters is fewer than 10: the analysis gives no verdict" in out


# ============================================================================================
# k systems
# ============================================================================================


def test_graded_five_systems_all_pairs_are_planned_at_the_candidate_family(capsys):
    """Five systems: 4 baseline pairs in one family, 6 candidate pairs in the other; a pair is
    planned at alpha over the larger family."""
    code, out, _ = run(
        capsys, "--design", "graded", "--delta", "0.05", "--sd", "0.2", "--systems", "5"
    )
    assert code == 0
    assert "5 systems, 10 pairs: each pair planned at alpha 0.05/6 = 0.008333" in out
    assert "Holm" in out
    # R: power.t.test(delta = 0.05, sd = 0.2, sig.level = 0.05 / 6, type = "paired") -> 197.24
    assert "198 items (396 model runs; raw 197.24" in out
    assert (
        "all 5 systems run the same 198 items: 990 model runs (640 without the correction)" in out
    )


def test_pass_fail_systems_against_the_baseline_json(capsys):
    plan = plan_json(
        capsys,
        *("--baseline-rate", "0.9", "--delta", "-0.05", "--discordance", "0.15"),
        *("--systems", "4", "--pairs", "baseline"),
    )
    assert (plan["design"], plan["comparisons"], plan["items"]) == ("pass-fail", 3, 626)
    assert plan["pair_alpha"] == pytest.approx(0.05 / 3)
    assert plan["pair"]["paired_n"] == 626 and plan["uncorrected"]["paired_n"] == 469
    assert plan["model_runs"] == 4 * 626
    assert plan["independent_model_runs"] == 4 * plan["pair"]["independent_n_per_arm"]


def test_epochs_with_systems_count_every_epoch(capsys):
    plan = plan_json(capsys, *EPOCH_ARGS, "--epochs", "3", "--systems", "3")
    assert plan["model_runs"] == plan["items"] * 3 * 3


# ============================================================================================
# Usage errors: one line, exit 2
# ============================================================================================


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--design", "graded", "--delta", "0.05"], "--design graded needs --sd"),
        (["--delta", "0.05"], "--design pass-fail needs --discordance"),
        (
            ["--design", "graded", "--delta", "0.05", "--sd", "0.2", "--discordance", "0.1"],
            "--discordance is not used by --design graded",
        ),
        (
            ["--delta", "0.05", "--discordance", "0.15", "--epochs", "3"],
            "--epochs is not used by --design pass-fail (--epochs is for --design epochs)",
        ),
        ([*EPOCH_ARGS], "needs --epochs K (to plan the items) or --items N"),
        ([*EPOCH_ARGS, "--epochs", "3", "--items", "50"], "one of them"),
        (
            ["--design", "epochs", "--delta", "0.1", "--sd-within", "0.3", "--epochs", "2"],
            "--design epochs needs --sd-between",
        ),
        (
            ["--design", "clustered", "--delta", "0.05", "--cluster-size", "5", "--icc", "0.1"],
            "a pass/fail base (--discordance) or a graded one (--sd)",
        ),
        (
            ["--design", "clustered", "--delta", "0.05", "--sd", "0.2", "--icc", "0.1"],
            "--design clustered needs --cluster-size M with --icc R, or --design-effect",
        ),
        (
            [
                *("--design", "clustered", "--delta", "0.05", "--sd", "0.2"),
                *("--design-effect", "1.2", "--icc", "0.1", "--cluster-size", "4"),
            ],
            "takes --icc or --design-effect, one of them",
        ),
        (
            [
                *("--design", "clustered", "--delta", "0.05", "--sd", "0.2"),
                *("--baseline-rate", "0.9", "--design-effect", "1.2"),
            ],
            "--baseline-rate and --formula are for a pass/fail base",
        ),
        (
            [
                *("--design", "clustered", "--delta", "0.05", "--sd", "0.2"),
                *("--cluster-size", "4", "--icc", "1.5"),
            ],
            "icc must be between 0 and 1, got 1.5",
        ),
        (
            ["--design", "graded", "--delta", "0.05", "--sd", "0.2", "--pairs", "baseline"],
            "--pairs needs --systems K",
        ),
        (
            ["--design", "graded", "--delta", "0.05", "--sd", "0.2", "--systems", "1"],
            "systems must be a whole number of at least 2, got 1",
        ),
        (["--design", "graded", "--delta", "0.05", "--sd", "-1"], "sd must be a positive"),
        (["--design", "graded", "--delta", "0", "--sd", "0.2"], "delta must be a non-zero"),
        (
            ["--design", "graded", "--delta", "0.05", "--sd", "0.2", "--power", "1"],
            "power must be at least 0.5 and below 1",
        ),
        (
            ["--baseline-rate", "0.97", "--delta", "0.02", "--discordance", "0.15"],
            "needs 8.5% of items to improve",
        ),
        (
            [*EPOCH_ARGS, "--epochs", "0"],
            "epochs must be a whole number of at least 1, got 0",
        ),
    ],
)
def test_impossible_or_incomplete_plans_exit_2_with_one_line(capsys, args, fragment):
    code, out, err = run(capsys, *args)
    assert code == 2, err
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("evaltui: error: ")
    assert fragment in err


def test_an_unknown_design_is_an_argparse_error_exit_2(capsys):
    code, _, err = run(capsys, "--design", "bayes", "--delta", "0.1")
    assert code == 2 and "invalid choice: 'bayes'" in err


def test_help_describes_every_design(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0
    for word in ("pass-fail", "graded", "epochs", "clustered", "--systems", "--pairs", "Holm"):
        assert word in out
    for example in (
        "evaltui plan --design graded --delta 0.05 --sd 0.2",
        "--design epochs --delta 0.1 --sd-between 0.2 --sd-within 0.3 --epochs 3",
        "--design clustered --delta 0.06 --discordance 0.15 --cluster-size 6 --icc 0.1",
    ):
        assert example in out


@pytest.mark.parametrize(
    "args",
    [
        ["--delta", "0.05", "--discordance", "0.15"],
        ["--design", "graded", "--delta", "0.05", "--sd", "0.2", "--systems", "3"],
        [*EPOCH_ARGS, "--items", "100"],
        [*EPOCH_ARGS, "--epochs", "2", "--systems", "4", "--pairs", "baseline"],
        [
            "--design",
            "clustered",
            "--delta",
            "0.06",
            "--discordance",
            "0.15",
            "--design-effect",
            "1.3",
        ],  # noqa: E501
    ],
)
def test_every_design_help_example_runs_and_its_json_is_strict(capsys, args):
    code, out, _ = run(capsys, *args, "--format", "json")
    assert code == 0
    json.loads(out, parse_constant=lambda c: pytest.fail(f"non-JSON constant {c}"))
