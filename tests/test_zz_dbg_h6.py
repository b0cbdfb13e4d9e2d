from pathlib import Path
import json
from tests.conftest import RunGate
def test_dbg(run_gate: RunGate, tmp_path: Path) -> None:
    cache = tmp_path / "predictions.sqlite"
    cold = run_gate("-m", "fairness", "-k", "sst2", "--nlp-sample", "20", "--nlp-prediction-cache", str(cache), workers=0)
    print("ENGINE", json.dumps(cold.json["engine"]), cache.exists(), cache)
    assert 0
