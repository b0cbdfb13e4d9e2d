"""Benchmark: the paper's workload (Tables 2 + 3 on ten base-size models) on one GPU.

Run by hand on a machine with CUDA (never in CI, never as a timed test)::

    .venv/bin/python benchmarks/bench_paper_gpu.py                  # float32 and float16
    .venv/bin/python benchmarks/bench_paper_gpu.py --device cpu --sample 2 --models sst2-bert

1. Builds ten classifiers from the published configurations of bert-base-uncased and
   albert-base-v2 (``BASE_CONFIGS``: the sizes of the seed's textattack checkpoints), one per
   dataset of Tables 2-3 (rotten_tomatoes, yelp_polarity, sst2: sentiment; qqp, mrpc:
   paraphrase) x family, with random weights and a classifier head, saved with the zoo's
   tokenizer of that dataset and family (the hub's are out of reach here).  That is the
   arithmetic of the paper's models, not their predictions: fail rates mean nothing, time and
   memory do.
2. Our suite: ``pytest tests_behavioral -m "checklist and not native"`` over them, one xdist
   worker per GPU, ``--nlp-device cuda --nlp-dtype float32`` then ``float16``, prediction cache
   off (cold, as a first run on new models).
3. CheckList's reference path on the same GPU: ``TestSuite.run`` with a transformers
   text-classification pipeline on chunks of 128, as the seed's notebook
   (``bench_checklist.NotebookPredictor``), float32.

Prints per model and in total: wall time, inputs per second, forward passes per unique input,
peak GPU memory (nvidia-smi, sampled every 0.1 s), for each path; the whole-workload time
against the target (< 3 minutes on one H100) and the speed-up over the reference (>= 5x).
Writes everything to ``reports/bench_paper_gpu.json``, after each stage (a lent machine's
minutes are few: ``--deadline-s N`` starts no reference model after N seconds).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_checklist import SUITES, NotebookPredictor, _outcome, measured  # noqa: E402  # after the sys.path set-up above

from nlp_gate.config.profiles import DEFAULT_MODELS_FILE, ModelSpec, load_profile  # noqa: E402  # after the sys.path set-up above

# The published configurations (config.json on the hub) of the seed's two base models.
BASE_CONFIGS: dict[str, dict[str, Any]] = {
    "bert": {
        "model_type": "bert",
        "vocab_size": 30522,
        "hidden_size": 768,
        "num_hidden_layers": 12,
        "num_attention_heads": 12,
        "intermediate_size": 3072,
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1,
        "attention_probs_dropout_prob": 0.1,
        "max_position_embeddings": 512,
        "type_vocab_size": 2,
        "initializer_range": 0.02,
        "layer_norm_eps": 1e-12,
    },
    "albert": {
        "model_type": "albert",
        "vocab_size": 30000,
        "embedding_size": 128,
        "hidden_size": 768,
        "num_hidden_layers": 12,
        "num_hidden_groups": 1,
        "num_attention_heads": 12,
        "intermediate_size": 3072,
        "inner_group_num": 1,
        "hidden_act": "gelu_new",
        "hidden_dropout_prob": 0,
        "attention_probs_dropout_prob": 0,
        "max_position_embeddings": 512,
        "type_vocab_size": 2,
        "initializer_range": 0.02,
        "layer_norm_eps": 1e-12,
    },
}
TARGETS = {"workload_s": 180.0, "speedup": 5.0}


def paper_models(keys: list[str] | None) -> list[ModelSpec]:
    """The ten (dataset, family) pairs of Tables 2-3, from the tiny profile's layout."""
    profile = load_profile("tiny")
    specs = [m for suite in SUITES for m in profile.for_suite(suite)]
    return [m for m in specs if not keys or m.key in keys]


def build(specs: list[ModelSpec], root: Path, zoo: Path) -> dict[str, Path]:
    """Base-size classifiers with random weights (seeded), each with its zoo tokenizer."""
    import torch
    from transformers import AutoConfig, AutoModelForSequenceClassification

    built = {}
    for i, spec in enumerate(specs):
        family = spec.source.removeprefix("zoo:").split("/")[1]
        target = root / spec.dataset / family
        if not (target / "config.json").is_file():
            raw = dict(BASE_CONFIGS[family])
            config = AutoConfig.for_model(
                raw.pop("model_type"),
                **raw,
                num_labels=len(spec.labels),
                id2label=dict(enumerate(spec.labels)),
                label2id={n: j for j, n in enumerate(spec.labels)},
            )
            torch.manual_seed(i)
            model = AutoModelForSequenceClassification.from_config(config)
            model.save_pretrained(target)
            for tokenizer_file in (zoo / spec.dataset / family).iterdir():
                if tokenizer_file.is_file() and tokenizer_file.name not in (
                    "config.json",
                    "model.safetensors",
                ):
                    shutil.copy2(tokenizer_file, target / tokenizer_file.name)
        built[spec.key] = target
    return built


def models_file(specs: list[ModelSpec], built: dict[str, Path], work: Path) -> tuple[Path, Path]:
    import yaml

    tasks = yaml.safe_load(DEFAULT_MODELS_FILE.read_text())["tasks"]
    datasets: dict[str, Any] = {}
    for spec in specs:
        entry = datasets.setdefault(spec.dataset, {"task": spec.task.name, "models": {}})
        entry["models"][spec.name] = {"id": str(built[spec.key]), "labels": list(spec.labels)}
    path = work / "models.yaml"
    path.write_text(yaml.safe_dump({"tasks": tasks, "profiles": {"bench": {"datasets": datasets}}}))
    gates = work / "gates.yaml"  # no gate matters here: random weights
    gates.write_text(yaml.safe_dump({"profiles": {"bench": {"checklist": {"default": 100}}}}))
    return path, gates


class GpuMemory:
    """Peak used GPU memory over a block (MiB, summed over GPUs), from nvidia-smi."""

    def __init__(self) -> None:
        self.peak = 0.0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._done.is_set():
            try:
                out = subprocess.run(
                    ["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits"],
                    capture_output=True,
                    text=True,
                    timeout=5,
                ).stdout
                self.peak = max(self.peak, sum(float(x) for x in out.split()))
            except (OSError, ValueError, subprocess.SubprocessError):
                return  # no nvidia-smi: no figure
            self._done.wait(0.1)

    def __enter__(self) -> GpuMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join()


def run_suite(
    models: Path,
    gates: Path,
    work: Path,
    dtype: str,
    device: str,
    sample: int | None,
    batch_size: int,
    workers: int,
) -> dict[str, Any]:
    results, junit = work / f"results-{dtype}.json", work / f"junit-{dtype}.xml"
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "tests_behavioral",
        "-m",
        "checklist and not native",
        "-q",
        "-p",
        "no:cacheprovider",
        "--no-header",
        "-n",
        str(workers),
        "--nlp-models-file",
        str(models),
        "--nlp-profile",
        "bench",
        "--nlp-thresholds",
        str(gates),
        "--nlp-device",
        device,
        "--nlp-dtype",
        dtype,
        "--nlp-batch-size",
        str(batch_size),
        "--nlp-prediction-cache",
        "off",
        "--nlp-results",
        str(results),
        "--junitxml",
        str(junit),
    ]
    if sample is not None:
        cmd += ["--nlp-sample", str(sample)]
    with GpuMemory() as gpu:
        run = measured(cmd, work / f"suite-{dtype}.log", ok=lambda rc: rc in (0, 1))
    engine = json.loads(results.read_text()).get("engine", [])
    per_model: dict[str, dict[str, float]] = {}
    for r in engine:
        m = per_model.setdefault(
            f"{r['dataset']}-{r['model']}", {"forward_passes": 0, "unique_inputs": 0, "item_s": 0.0}
        )
        m["forward_passes"] += r["forward_passes"]
        m["unique_inputs"] += r["unique_inputs"]
    for case in ET.parse(junit).getroot().iter("testcase"):  # item time, per model
        name = case.get("name", "")
        for key in per_model:
            dataset, model = key.split("-", 1)
            # "...[suite/test/sst2/bert]", "@<xdist group>" appended under loadgroup
            if re.search(rf"/{re.escape(dataset)}/{re.escape(model)}\](@\S*)?$", name):
                per_model[key]["item_s"] += float(case.get("time", 0))
    return {**run, "peak_gpu_mib": gpu.peak, "models": per_model}


def run_reference(
    specs: list[ModelSpec], built: dict[str, Path], sample: int | None, device: str, deadline: float
) -> dict[str, Any]:
    import torch

    from nlp_gate.suites import default_search_dirs, load_suite, locate

    suites = {s: load_suite(s, locate(s, default_search_dirs(REPO))) for s in SUITES}
    report: dict[str, Any] = {"models": {}, "not_run": []}
    start_all = time.perf_counter()
    with GpuMemory() as gpu:
        for spec in specs:
            if time.monotonic() > deadline:  # a lent GPU's minutes are few: keep what ran
                report["not_run"].append(spec.key)
                continue
            start = time.perf_counter()
            predictor = NotebookPredictor(
                spec, str(built[spec.key]), 0 if device.startswith("cuda") else -1, 128
            )
            suites[spec.task.suite].run(predictor, overwrite=True, seed=1, n=sample, verbose=False)
            if device.startswith("cuda"):
                torch.cuda.synchronize()
            report["models"][spec.key] = {
                "wall_s": time.perf_counter() - start,
                "model_calls": predictor.calls,
                "unique_inputs": len(predictor.seen),
                "tests": {n: _outcome(t) for n, t in suites[spec.task.suite].tests.items()},
            }
            print(f"reference {spec.key}: {report['models'][spec.key]['wall_s']:.1f} s", flush=True)
    report.update(wall_s=time.perf_counter() - start_all, peak_gpu_mib=gpu.peak)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="cuda", help="cuda (default) or cpu (a dry run)")
    parser.add_argument("--dtypes", nargs="+", default=["float32", "float16"])
    parser.add_argument("--sample", type=int, default=None, help="N cases per test (default all)")
    parser.add_argument("--models", nargs="+", default=None, metavar="KEY")
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--workers", type=int, default=1, help="xdist workers (one per GPU)")
    parser.add_argument("--no-reference", action="store_true")
    parser.add_argument("--models-dir", type=Path, default=REPO / ".cache" / "bench-paper")
    parser.add_argument("--output", type=Path, default=REPO / "reports" / "bench_paper_gpu.json")
    parser.add_argument(
        "--deadline-s",
        type=float,
        default=None,
        help="start no reference model after this many seconds of the run",
    )
    args = parser.parse_args()
    deadline = time.monotonic() + (args.deadline_s if args.deadline_s else float("inf"))
    from nlp_gate.config.paths import zoo_dir
    from nlp_gate.zoo import ensure_zoo, read_card

    zoo = zoo_dir(REPO)
    # Only the zoo's tokenizers go with the base-size models (the weights are built here), and
    # they come from the generated data alone: a zoo built under other library versions (the
    # GPU machine's torch) serves as it is, where ensure_zoo would rebuild it.
    if read_card(zoo) is None:
        ensure_zoo(zoo)
    specs = paper_models(args.models)
    built = build(specs, args.models_dir, zoo)
    body: dict[str, Any] = {
        "device": args.device,
        "sample": args.sample,
        "models": [s.key for s in specs],
        "batch_size": args.batch_size,
        "gpu": _gpu_name(),
        "suite": {},
    }

    def save() -> None:  # after each stage: a run cut short keeps what it measured
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps(body, indent=2, default=str) + "\n")

    with tempfile.TemporaryDirectory(prefix="bench-paper-") as tmp:
        work = Path(tmp)
        models, gates = models_file(specs, built, work)
        for dtype in args.dtypes:
            if dtype != "float32" and not args.device.startswith("cuda"):
                continue  # half precision is a GPU path
            print(f"our suite, {dtype} ...", flush=True)
            body["suite"][dtype] = run_suite(
                models, gates, work, dtype, args.device, args.sample, args.batch_size, args.workers
            )
            print(f"our suite, {dtype}: {body['suite'][dtype]['wall_s']:.1f} s", flush=True)
            save()
    if not args.no_reference:
        print("CheckList reference path, float32 ...", flush=True)
        body["reference"] = run_reference(specs, built, args.sample, args.device, deadline)
    report(body)
    save()
    print(f"written: {args.output}")


def report(body: dict[str, Any]) -> None:
    ref = body.get("reference")
    for dtype, run in body["suite"].items():
        print(
            f"\nour suite, {dtype} on {body['gpu'] or body['device']}: "
            f"{run['wall_s']:.1f} s in total, peak GPU memory {run['peak_gpu_mib']:.0f} MiB"
        )
        print(
            f"  {'model':<24}{'item time s':>12}{'inputs/s':>12}{'fwd/unique':>12}"
            f"{'ref s':>10}{'ref fwd/unique':>16}"
        )
        for key, m in run["models"].items():
            rate = m["forward_passes"] / m["item_s"] if m["item_s"] else float("nan")
            r = (ref or {}).get("models", {}).get(key, {})
            ref_ratio = (r["model_calls"] / r["unique_inputs"]) if r else float("nan")
            print(
                f"  {key:<24}{m['item_s']:>12.1f}{rate:>12.0f}"
                f"{m['forward_passes'] / max(1, m['unique_inputs']):>12.3f}"
                f"{r.get('wall_s', float('nan')):>10.1f}{ref_ratio:>16.2f}"
            )
        met = run["wall_s"] < TARGETS["workload_s"]
        print(
            f"  whole workload: {run['wall_s']:.1f} s (target < {TARGETS['workload_s']:.0f} s: "
            f"{'met' if met else 'MISSED'})"
        )
        if ref and not ref["not_run"]:
            speedup = ref["wall_s"] / run["wall_s"]
            met = speedup >= TARGETS["speedup"]
            print(
                f"  reference path: {ref['wall_s']:.1f} s, peak GPU memory "
                f"{ref['peak_gpu_mib']:.0f} MiB; speed-up {speedup:.1f}x (target >= "
                f"{TARGETS['speedup']:.0f}x: {'met' if met else 'MISSED'})"
            )
        elif ref:  # stopped at the deadline: compare the models it ran, item time against wall
            ran = [k for k in ref["models"] if k in run["models"]]
            ours = sum(run["models"][k]["item_s"] for k in ran)
            theirs = sum(ref["models"][k]["wall_s"] for k in ran)
            print(
                f"  reference path ran {len(ran)} of {len(run['models'])} models before the "
                f"deadline ({', '.join(ref['not_run'])} not run): {theirs:.1f} s against our "
                f"item time {ours:.1f} s on those, speed-up {theirs / max(ours, 1e-9):.1f}x; "
                f"peak GPU memory {ref['peak_gpu_mib']:.0f} MiB"
            )


def _gpu_name() -> str | None:
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=10,
        )
        return out.stdout.strip() or None
    except OSError:
        return None


if __name__ == "__main__":
    main()
