"""GPU check of the prediction engine, run by hand on a machine with CUDA (never in CI).

    .venv/bin/python benchmarks/check_gpu.py            # every tiny-zoo model, held-out splits

For each model of the ``tiny`` profile it loads the same checkpoint through
``nlp_gate.engine.loading.load_classifier`` on the CPU and with ``--nlp-device auto`` (as xdist
workers gw0 and gw1 would: one GPU each, round robin), in float32, float16 and bfloat16
(autocast), with the prediction cache off, and compares the probabilities on the model's
generated held-out split.  It prints one line per model and dtype and exits non-zero when

* ``auto`` did not pick a CUDA device, or
* float32 on the GPU differs from the CPU by more than 1e-4 in any probability, or
* float16/bfloat16 change the predicted class of more than 1% of the inputs.

The prediction cache keys these runs apart (the dtype and device kind are in the model
fingerprint), so a half-precision run never serves float32 predictions or the reverse.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # run as a script from anywhere

from nlp_gate.config.profiles import load_profile  # noqa: E402  # after the sys.path set-up above
from nlp_gate.engine.loading import load_classifier, zoo_location  # noqa: E402  # after the sys.path set-up above
from nlp_gate.engine.predictor import LoadOptions  # noqa: E402  # after the sys.path set-up above
from nlp_gate.zoo import default_zoo_root, ensure_zoo  # noqa: E402  # after the sys.path set-up above
from workshop.zoo.data import heldout_path, read_jsonl  # noqa: E402  # after the sys.path set-up above

FP32_ATOL = 1e-4
HALF_MAX_FLIPS = 0.01


def main() -> int:
    import torch

    if not torch.cuda.is_available():
        print("check_gpu: no CUDA device visible; nothing to check")
        return 2
    ensure_zoo()
    zoo = default_zoo_root()
    problems: list[str] = []
    rows = []
    for spec in load_profile("tiny").models:
        location = zoo_location(zoo, spec)
        inputs = [e.text for e in read_jsonl(heldout_path(zoo, spec.dataset))]
        cpu = load_classifier(spec, location, LoadOptions(device="cpu", cache=None))
        reference = cpu.predict_proba(inputs)
        gpu_float32 = ""  # the fingerprint a half-precision run must not share
        for worker, dtype in ((0, "float32"), (1, "float32"), (0, "float16"), (1, "bfloat16")):
            gpu = load_classifier(
                spec, location, LoadOptions(device="auto", dtype=dtype, cache=None), worker
            )
            probs = gpu.predict_proba(inputs)
            diff = float(np.abs(probs - reference).max())
            flips = float(np.mean(probs.argmax(1) != reference.argmax(1)))
            row = {
                "model": spec.key,
                "worker": f"gw{worker}",
                "device": gpu.device,
                "dtype": dtype,
                "inputs": len(inputs),
                "max_abs_diff": diff,
                "class_flips": flips,
                "fingerprint": gpu.fingerprint,
            }
            rows.append(row)
            print(
                f"{spec.key:<22} gw{worker} {gpu.device:<7} {dtype:<9} n={len(inputs):<5} "
                f"max|p-p_cpu|={diff:.2e} class flips={100 * flips:.2f}%"
            )
            if not gpu.device.startswith("cuda"):
                problems.append(f"{spec.key}: --nlp-device auto chose {gpu.device}")
            if dtype == "float32" and diff > FP32_ATOL:
                problems.append(f"{spec.key} gw{worker}: float32 GPU vs CPU differ by {diff:.2e}")
            if dtype != "float32" and flips > HALF_MAX_FLIPS:
                problems.append(f"{spec.key} {dtype}: {100 * flips:.2f}% of classes flipped")
            if dtype == "float32":
                gpu_float32 = gpu.fingerprint
            elif gpu.fingerprint == gpu_float32:
                problems.append(f"{spec.key} {dtype}: same cache fingerprint as float32")
    out = REPO / "reports" / "gpu_check.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        json.dumps(
            {
                "device": torch.cuda.get_device_name(0),
                "torch": torch.__version__,
                "rows": rows,
                "problems": problems,
            },
            indent=2,
        )
        + "\n"
    )
    print(f"written: {out}")
    for p in problems:
        print(f"PROBLEM: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
