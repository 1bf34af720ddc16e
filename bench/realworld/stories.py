"""The five mission stories, checked on their real files at pinned commits.

    .venv/bin/python bench/realworld/stories.py            # a verdict per story
    .venv/bin/python bench/realworld/stories.py --json FILE

Each story is a real device bug in a public project: the file at the bug's commit, the bug's
lines there, the file at the fix's commit and the fix's lines.  The files are extracted from
the local mirrors at benchmark time (``realfiles.py``: ``$FLAKE8_DEVICE_MIRROR``, default
/work/.mirror; nothing is committed) and linted with the default rule set.  A story is

- *reported* when a default-on finding lands on one of its bug lines (the codes are shown);
- *silent on the fix* when no finding lands on the fix's lines at the fix's commit.

``run_stories()`` returns the results and ``print_verdicts()`` prints them (for
``bench/realworld/run.py``).  The lines were read from the code; the expected codes say
which rule the story is about (any default-on finding on a bug line counts as reported).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from realfiles import MirrorMissing, Result, measure

LLMS = "rasbt/LLMs-from-scratch"
COMPOSER = "mosaicml/composer"
LIGHTNING = "Lightning-AI/pytorch-lightning"
MINICPM = "OpenBMB/MiniCPM-V"
TRAINER = "composer/trainer/trainer.py"
RESULT = "src/lightning/pytorch/trainer/connectors/logger_connector/result.py"
MINICPM_COMMIT = "8d9c86a919cb1b0b6ff46a0c17752062b61ce010"  # finetune/readme.md documents the ZeRO-3 offload


@dataclass(frozen=True)
class Story:
    id: str
    title: str
    expected: tuple[str, ...]  # the codes the story is about
    entry: dict[str, Any]  # a realfiles entry: repo, bad_commit, fix_commit, path, bad_lines, fixed_lines, ...
    note: str = ""


STORIES = (
    Story(
        "llms-from-scratch-head-replaced",
        "LLMs-from-scratch ch06: the classification head replaced after the model was moved in both arms of an if/else",
        ("DEV101",),
        {
            "repo": LLMS,
            "bad_commit": "7a2a157844dacdae14f669dee2cf9616a7645b10",
            "fix_commit": "86f6c2df43114db614461e54b10c58da4b18d461",
            "path": "ch06/01_main-chapter-code/gpt-class-finetune.py",
            # model.to(device) in the if arm (355) and the else arm (386); the new head at 398
            "bad_lines": [398],
            # the fix: the head (393), then model.to(device) after it (394)
            "fixed_lines": [393, 394],
        },
    ),
    Story(
        "composer-mps-eval-outputs-on-cpu",
        "Composer _eval_loop on MPS: outputs moved to the CPU, the batch left on the device, both reach update_metric",
        ("DEV201", "DEV603"),
        {
            "repo": COMPOSER,
            "bad_commit": "00a07fa3c593d8e1f434e67ad2973828277276c2",
            "fix_commit": "f925ef04bc3e6e7962fd8fdf3c2af6e205c92e34",
            "path": TRAINER,
            # v.cpu() into outputs (3318, 3325, 3329); update_metric(self.state.batch, outputs, metric) (3334-3336)
            "bad_lines": [3318, 3325, 3329, 3334, 3335, 3336],
            # the same moves (3331, 3338, 3342), the batch moved to the CPU too (3343), update_metric(batch, ...)
            "fixed_lines": [3331, 3338, 3342, 3343, 3349, 3350, 3351],
        },
        "Composer's own trainer; DEV603 reports the user's Trainer(device='mps') on affected releases instead",
    ),
    Story(
        "composer-device-transforms-before-move",
        "Composer: DataSpec.device_transforms applied to the batch before it is moved to the device",
        ("DEV206", "DEV602"),
        {
            "repo": COMPOSER,
            "bad_commit": "93678e81784b1be758ddb5df88e3b86408171042",
            "fix_commit": "18da7257e5374573cf4259ea6eeb69bdd7d769d8",
            "path": TRAINER,
            # _train_loop applies device_transforms (2625) before _train_microbatches moves (3036);
            # _eval_loop applies them (3589) before the microbatch loop moves (3618)
            "bad_lines": [2625, 3589],
            # batch_transforms on the host (2625, 3590), microbatch_transforms after each move (3037, 3620)
            "fixed_lines": [2625, 3037, 3590, 3620],
        },
        "Composer's own trainer; DEV602 reports the user's DataSpec(device_transforms=...) on affected releases instead",
    ),
    Story(
        "lightning-result-metric-not-following-value",
        "Lightning ResultCollection.log: the _ResultMetric (its state tensors) moved to the value's device only when "
        "first registered; later values on another device meet the stale state, and NCCL syncs it",
        ("DEV503", "DEV502", "DEV501"),
        {
            "repo": LIGHTNING,
            "bad_commit": "2064887b12dd934a5f9a2bf45897f29e3bfc74d1",
            "fix_commit": "b19eba3ac7361d04d016e6774606588aa0a25529",
            "path": RESULT,
            # register_key only for a new key (403); update_metrics with the value (412);
            # _ResultMetric(...).to(value.device) once, at registration (420)
            "bad_lines": [403, 412, 420],
            # the metric built (403, 404), moved to value.device on every log (411), updated (414)
            "fixed_lines": [403, 404, 411, 414],
        },
    ),
    Story(
        "minicpm-v-zero3-offload-deepspeed-0.14.2",
        "MiniCPM-V finetune: ZeRO-3 with the optimizer offloaded to the CPU and gradient clipping ('auto'), "
        "on DeepSpeed 0.14.2 (fails) and 0.14.5 (fixed)",
        ("DEV601",),
        {
            "repo": MINICPM,
            "bad_commit": MINICPM_COMMIT,
            "fix_commit": MINICPM_COMMIT,
            "path": "finetune/ds_config_zero3.json",
            # the shipped file has offload devices "none"; finetune/readme.md (lines 151-163) tells users to
            # set both to "cpu" to offload: that configuration is linted (same lines)
            "edit": [['"device": "none"', '"device": "cpu"']],
            "versions": "deepspeed=0.14.2",
            "fix_versions": "deepspeed=0.14.5",
            # zero_optimization (33), stage 3 (34), offload_optimizer (35) on cpu (36), gradient_clipping (55)
            "bad_lines": [33, 34, 35, 36, 55],
            "fixed_lines": [33, 34, 35, 36, 55],
        },
        "the fix is the release: the same configuration linted with --device-versions deepspeed=0.14.5",
    ),
)


@dataclass
class StoryResult:
    story: Story
    result: Result | None = None
    error: str | None = None
    bad_codes: list[str] = field(default_factory=list)

    @property
    def reported(self) -> bool:
        return self.result is not None and self.result.found

    @property
    def silent_on_fix(self) -> bool:
        return self.result is not None and not self.result.false_alarm

    @property
    def verdict(self) -> str:
        if self.result is None:
            return "not measured"
        head = f"reported ({', '.join(sorted(set(self.bad_codes)))})" if self.reported else "missed"
        return head + ("; silent on the fix" if self.silent_on_fix else "; FALSE ALARM on the fix")

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.story.id, "verdict": self.verdict, "expected": list(self.story.expected)}
        if self.result is None:
            data["error"] = self.error
            return data
        data |= {
            "reported": self.reported,
            "silent_on_fix": self.silent_on_fix,
            "bad": {
                "commit": self.result.bad.commit,
                "lines": self.result.bad.lines,
                "hits": self.result.bad.hits,
                "findings_in_file": len(self.result.bad.findings),
            },
            "fix": {
                "commit": self.result.fixed.commit,
                "lines": self.result.fixed.lines,
                "hits": self.result.fixed.hits,
                "findings_in_file": len(self.result.fixed.findings),
            },
        }
        return data


def run_stories(stories: tuple[Story, ...] = STORIES) -> list[StoryResult]:
    """Extract and lint each story's files; a story whose mirror is missing is 'not measured'."""
    results = []
    for story in stories:
        try:
            result = measure(story.entry)
        except MirrorMissing as error:
            results.append(StoryResult(story, error=str(error)))
            continue
        results.append(StoryResult(story, result, bad_codes=[str(f["code"]) for f in result.bad.hits]))
    return results


def print_verdicts(results: list[StoryResult] | None = None, out: Any = None) -> list[StoryResult]:
    """Print a verdict per story (running them unless ``results`` is given); returns the results."""
    out = out or sys.stdout
    results = run_stories() if results is None else results
    for item in results:
        story = item.story
        print(f"- {story.id}: {item.verdict} [about {', '.join(story.expected)}]", file=out)
        entry = story.entry
        if item.result is None:
            print(f"    not measured: {item.error}", file=out)
            continue
        print(f"    {entry['repo']} {entry['path']}", file=out)
        versions = f" ({entry['versions']})" if entry.get("versions") else ""
        fix_versions = entry.get("fix_versions", entry.get("versions"))
        print(f"    bug {entry['bad_commit'][:10]}{versions}: {item.result.bad.describe()}", file=out)
        print(
            f"    fix {entry['fix_commit'][:10]}{f' ({fix_versions})' if fix_versions else ''}: "
            f"{item.result.fixed.describe()}",
            file=out,
        )
        if story.note:
            print(f"    note: {story.note}", file=out)
    reported = sum(1 for r in results if r.reported)
    silent = sum(1 for r in results if r.result is not None and r.silent_on_fix)
    measured = sum(1 for r in results if r.result is not None)
    print(
        f"stories reported: {reported} of {len(results)}; silent on the fix: {silent} of {measured} measured", file=out
    )
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = parser.parse_args()
    results = print_verdicts()
    if args.json:
        Path(args.json).write_text(json.dumps([r.as_json() for r in results], indent=2) + "\n", encoding="utf-8")
    return 0 if all(r.result is not None for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
