"""Write the small real-format evaluation logs under tests/data/logs/ (deterministic).

Run from anywhere: ``python tests/data/logs/make_fixtures.py``. The outcomes are simulated
(fixed seed); the files follow the layouts the harnesses themselves write: field names,
nesting, file and directory naming, the zip members of an Inspect ``.eval``, and aggregate
files whose numbers are computed from the per-item records the way each harness computes
them. See README.md beside this script.
"""

from __future__ import annotations

import hashlib
import json
import math
import shutil
import zipfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent
SUBJECTS = (
    "anatomy",
    "astronomy",
    "virology",
    "world_religions",
    "marketing",
    "nutrition",
    "philosophy",
    "sociology",
)


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _stderr(x: list[float]) -> float:
    a = np.asarray(x, dtype=float)
    return float(a.std(ddof=1) / math.sqrt(len(a))) if len(a) > 1 else 0.0


def _write_json(path: Path, obj: object, indent: int | None = 2) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, indent=indent, ensure_ascii=False) + "\n", encoding="utf-8")


# ------------------------------------------------------------------------- lm-eval
LM_MODELS = {"EleutherAI/pythia-160m": 0.35, "EleutherAI/pythia-410m": 0.45,
             "EleutherAI/pythia-1b": 0.55}  # fmt: skip
SUBJECT_SHIFT = {
    "anatomy": 0.1,
    "astronomy": -0.1,
    "virology": 0.05,
    "world_religions": -0.05,
    "marketing": 0.15,
    "nutrition": 0.0,
    "philosophy": -0.15,
    "sociology": 0.05,
}


def _mmlu_docs(n: int = 40) -> list[dict]:
    return [
        {"question": f"Question {i} about {SUBJECTS[i % 8].replace('_', ' ')}?",
         "subject": SUBJECTS[i % 8], "choices": ["A1", "B2", "C3", "D4"], "answer": i % 4}
        for i in range(n)
    ]  # fmt: skip


def _gsm_docs(n: int = 12) -> list[dict]:
    return [
        {"question": f"Tom has {i + 2} apples and buys {i}. How many?",
         "answer": f"{i + 2} + {i} = {2 * i + 2}\n#### {2 * i + 2}"}
        for i in range(n)
    ]  # fmt: skip


def _lm_line(doc_id: int, doc: dict, target: str, prompt: str, resp: list, filt: str,
             metrics: dict) -> dict:  # fmt: skip
    line = {
        "doc_id": doc_id, "doc": doc, "target": target,
        "arguments": {"gen_args_0": {"arg_0": prompt, "arg_1": " " + target}},
        "resps": [resp], "filtered_resps": [resp[0]], "filter": filt,
        "metrics": list(metrics),
        "doc_hash": _hash(json.dumps(doc, indent=2, ensure_ascii=False)),
        "prompt_hash": _hash(prompt), "target_hash": _hash(target),
    }  # fmt: skip
    line.update(metrics)
    return line


def make_lm_eval(rng: np.random.Generator) -> None:
    out = ROOT / "lm_eval"
    shutil.rmtree(out, ignore_errors=True)
    mmlu, gsm = _mmlu_docs(), _gsm_docs()
    for k, (model, skill) in enumerate(LM_MODELS.items()):
        date = f"2024-05-1{4 + k}T12-3{k}-05.{123456 + k}"
        folder = out / model.replace("/", "__")
        folder.mkdir(parents=True)
        lines, acc = [], []
        for i, doc in enumerate(mmlu):
            p = min(max(skill + SUBJECT_SHIFT[doc["subject"]], 0.05), 0.95)
            a = float(rng.random() < p)
            acc.append(a)
            prompt = f"{doc['question']}\nA. A1\nB. B2\nC. C3\nD. D4\nAnswer:"
            target = "ABCD"[doc["answer"]]
            ll = [[round(float(-rng.gamma(2.0)), 4), False] for _ in range(4)]
            lines.append(_lm_line(i, doc, target, prompt, ll, "none",
                                  {"acc": a}))  # fmt: skip
        (folder / f"samples_mmlu_mini_{date}.jsonl").write_text(
            "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8"
        )
        gsm_lines, em = [], {"strict-match": [], "flexible-extract": []}
        for filt in ("strict-match", "flexible-extract"):
            for i, doc in enumerate(gsm):
                right = rng.random() < skill - 0.15 + (0.1 if filt == "flexible-extract" else 0)
                answer = doc["answer"].split("#### ")[1]
                text = f"The answer is {answer if right else int(answer) + 1}."
                extracted = answer if right else "[invalid]"
                gsm_lines.append(_lm_line(
                    i, doc, doc["answer"], f"Question: {doc['question']}\nAnswer:", [text], filt,
                    {"exact_match": float(right)},
                ) | {"filtered_resps": [extracted]})  # fmt: skip
                em[filt].append(float(right))
        (folder / f"samples_gsm8k_mini_{date}.jsonl").write_text(
            "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in gsm_lines), encoding="utf-8"
        )
        results = {
            "results": {
                "gsm8k_mini": {"alias": "gsm8k_mini",
                               **{f"exact_match,{f}": float(np.mean(v)) for f, v in em.items()},
                               **{f"exact_match_stderr,{f}": _stderr(v) for f, v in em.items()}},
                "mmlu_mini": {"alias": "mmlu_mini", "acc,none": float(np.mean(acc)),
                              "acc_stderr,none": _stderr(acc)},
            },
            "group_subtasks": {"gsm8k_mini": [], "mmlu_mini": []},
            "configs": {
                "gsm8k_mini": {"task": "gsm8k_mini", "dataset_path": "gsm8k", "output_type":
                               "generate_until", "num_fewshot": 0,
                               "filter_list": [{"name": "strict-match"},
                                               {"name": "flexible-extract"}]},
                "mmlu_mini": {"task": "mmlu_mini", "dataset_path": "cais/mmlu", "output_type":
                              "multiple_choice", "num_fewshot": 0},
            },
            "versions": {"gsm8k_mini": 3.0, "mmlu_mini": 1.0},
            "n-shot": {"gsm8k_mini": 0, "mmlu_mini": 0},
            "higher_is_better": {"gsm8k_mini": {"exact_match": True},
                                 "mmlu_mini": {"acc": True}},
            "n-samples": {"gsm8k_mini": {"original": len(gsm), "effective": len(gsm)},
                          "mmlu_mini": {"original": len(mmlu), "effective": len(mmlu)}},
            "config": {"model": "hf", "model_args": f"pretrained={model},dtype=float32",
                       "batch_size": "8", "batch_sizes": [], "device": "cuda:0",
                       "use_cache": None, "limit": None, "bootstrap_iters": 100000,
                       "gen_kwargs": None, "random_seed": 0, "numpy_seed": 1234,
                       "torch_seed": 1234, "fewshot_seed": 1234},
            "git_hash": "4f8195f", "date": 1715690000.0 + 86400 * k,
            "lm_eval_version": "0.4.2", "task_hashes": {},
            "model_source": "hf", "model_name": model,
            "model_name_sanitized": model.replace("/", "__"),
            "system_instruction": None, "system_instruction_sha": None,
            "fewshot_as_multiturn": False, "chat_template": None, "chat_template_sha": None,
            "total_evaluation_time_seconds": "73.5",
        }  # fmt: skip
        _write_json(folder / f"results_{date}.json", results)


# ------------------------------------------------------------------------- Inspect
INSPECT_MODELS = {"openai/gpt-4o-mini": 0.7, "anthropic/claude-3-haiku-20240307": 0.6}


def _inspect_samples(rng: np.random.Generator, skill: float, n: int, epochs: int) -> list[dict]:
    out = []
    for epoch in range(1, epochs + 1):
        for i in range(1, n + 1):
            hard = i % 3 == 0
            u = rng.random()
            p = skill - (0.25 if hard else 0.0)
            value = "C" if u < p else ("P" if u < p + 0.1 else "I")
            target = "ABCD"[i % 4]
            answer = target if value == "C" else "ABCD"[(i + 1) % 4]
            out.append({
                "id": f"arc_{i:03d}", "epoch": epoch,
                "input": f"Which is right? ({i})", "choices": ["w", "x", "y", "z"],
                "target": target,
                "messages": [{"role": "user", "content": f"Which is right? ({i})", "source":
                              "input"},
                             {"role": "assistant", "content": f"ANSWER: {answer}",
                              "source": "generate"}],
                "output": {"model": "m", "choices": [{"message": {"role": "assistant",
                           "content": f"ANSWER: {answer}"}, "stop_reason": "stop"}]},
                "scores": {"choice": {"value": value, "answer": answer,
                                      "explanation": f"ANSWER: {answer}"}},
                "metadata": {"difficulty": "hard" if hard else "easy",
                             "source": {"grade": 3 + i % 6, "set": "ARC-Easy"}},
                "store": {}, "events": [], "model_usage": {}, "attachments": {},
            })  # fmt: skip
    return out


def _inspect_header(model: str, samples: list[dict], epochs: int, created: str) -> dict:
    to_float = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
    per_id: dict[str, list[float]] = {}
    for s in samples:
        per_id.setdefault(s["id"], []).append(to_float[s["scores"]["choice"]["value"]])
    reduced = [float(np.mean(v)) for v in per_id.values()]  # epochs reducer "mean"
    return {
        "version": 2, "status": "success",
        "eval": {"run_id": "Vq8v2bWm3AU7cC3yxUe9Kz", "created": created, "task": "arc_mini",
                 "task_id": "5GF2yN3wPZ7kK6mT", "task_version": 0,
                 "task_file": "arc_mini.py", "task_attribs": {}, "task_args": {},
                 "dataset": {"name": "ai2_arc", "location": "allenai/ai2_arc",
                             "samples": len(per_id), "sample_ids": list(per_id),
                             "shuffled": False},
                 "model": model, "model_args": {}, "config": {"epochs": epochs,
                                                              "epochs_reducer": ["mean"]},
                 "packages": {"inspect_ai": "0.3.46"},
                 "scorers": [{"name": "choice", "options": {}, "metrics": [
                     {"name": "inspect_ai/accuracy", "options": {}},
                     {"name": "inspect_ai/stderr", "options": {}}], "metadata": {}}]},
        "plan": {"name": "plan", "steps": [{"solver": "multiple_choice", "params": {}}],
                 "config": {}},
        "results": {"total_samples": len(per_id), "completed_samples": len(per_id),
                    "scores": [{"name": "choice", "scorer": "choice", "reducer": "mean",
                                "params": {}, "metrics": {
                                    "accuracy": {"name": "accuracy",
                                                 "value": float(np.mean(reduced)),
                                                 "params": {}},
                                    "stderr": {"name": "stderr", "value": _stderr(reduced),
                                               "params": {}}}}]},
        "stats": {"started_at": created, "completed_at": created, "model_usage": {}},
    }  # fmt: skip


class _FixedTimeZip:
    """Zip members stamped with the run's time, so that the archive is the same every run."""

    def __init__(self, archive: zipfile.ZipFile) -> None:
        self.archive = archive

    def writestr(self, name: str, data: str) -> None:
        info = zipfile.ZipInfo(name, date_time=(2024, 9, 2, 10, 15, 31))
        info.compress_type = zipfile.ZIP_DEFLATED
        self.archive.writestr(info, data)


def make_inspect(rng: np.random.Generator) -> None:
    out = ROOT / "inspect"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    epochs, n = 3, 12
    (model_a, skill_a), (model_b, skill_b) = INSPECT_MODELS.items()
    # model A: an .eval zip, laid out as Inspect writes it
    samples = _inspect_samples(rng, skill_a, n, epochs)
    created = "2024-09-02T10:15:31+00:00"
    header = _inspect_header(model_a, samples, epochs, created)
    path = out / "2024-09-02T10-15-31+00-00_arc-mini_5GF2yN3wPZ7kK6mT.eval"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        zf = _FixedTimeZip(archive)
        start = {k: header[k] for k in ("version", "eval", "plan")}
        zf.writestr("_journal/start.json", json.dumps(start))
        summaries = [{k: s[k] for k in ("id", "epoch", "input", "target", "scores")}
                     for s in samples]  # fmt: skip
        for s in samples:
            zf.writestr(f"samples/{s['id']}_epoch_{s['epoch']}.json", json.dumps(s))
        zf.writestr("_journal/summaries/1.json", json.dumps(summaries))
        zf.writestr("summaries.json", json.dumps(summaries))
        to_float = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
        reductions = [{"scorer": "choice", "reducer": "mean", "samples": [
            {"value": float(np.mean([to_float[t["scores"]["choice"]["value"]] for t in samples
                                     if t["id"] == sid])), "sample_id": sid}
            for sid in dict.fromkeys(s["id"] for s in samples)]}]  # fmt: skip
        zf.writestr("reductions.json", json.dumps(reductions))
        zf.writestr("header.json", json.dumps(header))
    # model B: a .json log (the same document with samples inside); one sample errored
    samples = _inspect_samples(rng, skill_b, n, epochs)
    created = "2024-09-02T10:22:04+00:00"
    errored = {"id": "arc_013", "epoch": 1, "input": "Which is right? (13)", "target": "A",
               "messages": [], "output": {"model": "m", "choices": []}, "metadata": {},
               "error": {"message": "RateLimitError: 429", "traceback": "...",
                         "traceback_ansi": "..."}}  # fmt: skip
    header = _inspect_header(model_b, samples, epochs, created)
    header["eval"]["dataset"]["samples"] = n + 1
    log = {**header, "samples": [*samples, errored]}
    _write_json(out / "2024-09-02T10-22-04+00-00_arc-mini_hY2nW8sLq4RzT9cX.json", log, indent=None)


# ---------------------------------------------------------------------------- HELM
HELM_MODELS = {"openai/gpt2": 0.3, "meta/llama-7b": 0.45}


def make_helm(rng: np.random.Generator) -> None:
    out = ROOT / "helm" / "runs" / "v1"
    shutil.rmtree(ROOT / "helm", ignore_errors=True)
    for model, skill in HELM_MODELS.items():
        for subject in ("anatomy", "virology"):
            slug = model.replace("/", "_")
            run = f"mmlu:subject={subject},method=multiple_choice_joint,model={slug}"
            # HELM names the directory after the run (with ':'); ':' is replaced here so that
            # the repository checks out everywhere: the reader takes the name from run_spec.json
            folder = out / run.replace(":", "-")
            folder.mkdir(parents=True)
            _write_json(folder / "run_spec.json", {
                "name": run,
                "scenario_spec": {
                    "class_name": "helm.benchmark.scenarios.mmlu_scenario.MMLUScenario",
                    "args": {"subject": subject}},
                "adapter_spec": {"method": "multiple_choice_joint", "model": model,
                                 "model_deployment": model, "max_train_instances": 5,
                                 "num_train_trials": 1, "num_outputs": 5},
                "metric_specs": [{"class_name": "helm.benchmark.metrics.basic_metrics.BasicMetric",
                                  "args": {"names": ["exact_match"]}}],
                "groups": ["mmlu"],
            })  # fmt: skip
            entries, em = [], []
            for i in range(10):
                ok = float(rng.random() < skill)
                em.append(ok)
                tokens = float(rng.integers(1, 4))
                entries.append(_helm_entry(f"id{100 + i}", None, ok, tokens))
            for i in range(3):  # the robustness perturbation of the first three instances
                entries.append(_helm_entry(f"id{100 + i}", {"name": "typo", "robustness": True,
                                                            "fairness": False,
                                                            "computed_on": "perturbed",
                                                            "prob": 0.1},
                                           float(rng.random() < skill - 0.1), 1.0))  # fmt: skip
            _write_json(folder / "per_instance_stats.json", entries)
            stats = [_helm_stat("exact_match", em)]
            _write_json(folder / "stats.json", stats)


def _helm_stat(name: str, xs: list[float], perturbation: dict | None = None) -> dict:
    n = len(xs)
    s = float(sum(xs))
    ss = float(sum(x * x for x in xs))
    mean = s / n
    var = ss / n - mean * mean
    stat_name: dict = {"name": name, "split": "test"}
    if perturbation is not None:
        stat_name["perturbation"] = perturbation
    return {
        "name": stat_name,
        "count": n,
        "sum": s,
        "sum_squared": ss,
        "min": min(xs),
        "max": max(xs),
        "mean": mean,
        "variance": var,
        "stddev": math.sqrt(max(var, 0)),
    }


def _helm_entry(iid: str, pert: dict | None, ok: float, tokens: float) -> dict:
    entry: dict = {"instance_id": iid, "train_trial_index": 0}
    if pert is not None:
        entry["perturbation"] = pert
    entry["stats"] = [_helm_stat("exact_match", [ok], pert),
                      _helm_stat("num_output_tokens", [tokens], pert)]  # fmt: skip
    return entry


# ------------------------------------------------------------------------ lighteval
LIGHTEVAL_MODELS = {"HuggingFaceTB/SmolLM2-135M": 0.4, "HuggingFaceTB/SmolLM2-360M": 0.55}


def make_lighteval(rng: np.random.Generator) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = ROOT / "lighteval"
    shutil.rmtree(out, ignore_errors=True)
    task = "arc_easy"
    for k, (model, skill) in enumerate(LIGHTEVAL_MODELS.items()):
        date = f"2025-01-2{k}T09-0{k}-11.{400000 + k}"
        docs, metrics, responses = [], [], []
        for i in range(30):
            grade = 3 + i % 5
            docs.append({"query": f"Question: Which property {i}?\nAnswer:",
                         "choices": [" heat", " light", " sound", " mass"],
                         "gold_index": i % 4, "id": f"Mercury_{7000 + i}",
                         "task_name": f"lighteval|{task}|0", "instruction": "",
                         "specific": {"grade": grade}})  # fmt: skip
            a = float(rng.random() < skill + 0.03 * (5 - grade))
            metrics.append({"acc": a, "acc_norm": float(rng.random() < skill)})
            responses.append({"text": [], "logprobs": [round(float(-rng.gamma(2)), 3)
                                                       for _ in range(4)],
                              "truncated_tokens_count": 0, "padded_tokens_count": 0})  # fmt: skip
        table = pa.table({"doc": docs, "metric": metrics, "model_response": responses})
        folder = out / "details" / model / date
        folder.mkdir(parents=True)
        pq.write_table(table, folder / f"details_{task}_{date}.parquet", compression="zstd")
        acc = [m["acc"] for m in metrics]
        acc_norm = [m["acc_norm"] for m in metrics]
        agg = {
            "acc": float(np.mean(acc)),
            "acc_stderr": _stderr(acc),
            "acc_norm": float(np.mean(acc_norm)),
            "acc_norm_stderr": _stderr(acc_norm),
        }
        _write_json(out / "results" / model / f"results_{date}.json", {
            "config_general": {"lighteval_sha": "?", "num_fewshot_seeds": 1,
                               "max_samples": None, "job_id": "0", "model_name": model,
                               "model_dtype": "bfloat16"},
            "results": {task: agg, "all": agg},
            "versions": {task: 0},
            "config_tasks": {task: {"name": task, "hf_repo": "allenai/ai2_arc",
                                    "hf_subset": "ARC-Easy", "metrics": ["acc", "acc_norm"]}},
            "summary_tasks": {}, "summary_general": {},
        })  # fmt: skip


# ----------------------------------------------------------------------------- code
CODE_MODELS = {"codegen-2B": 0.3, "starcoder2-3b": 0.5}


def make_code(rng: np.random.Generator) -> None:
    out = ROOT / "code"
    shutil.rmtree(out, ignore_errors=True)
    folder = out / "human_eval"
    folder.mkdir(parents=True)
    for model, skill in CODE_MODELS.items():
        lines = []
        for t in range(10):
            p = min(max(skill + (0.3 if t < 3 else -0.2 if t > 6 else 0.0), 0.02), 0.98)
            for _ in range(5):
                ok = bool(rng.random() < p)
                lines.append({"task_id": f"HumanEval/{t}",
                              "completion": "    return sorted(x)\n" if ok else "    pass\n",
                              "result": "passed" if ok else "failed: AssertionError",
                              "passed": ok})  # fmt: skip
        (folder / f"{model}_samples.jsonl_results.jsonl").write_text(
            "".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8"
        )
    # evalplus writes eval_results.json into the samples' directory
    ev, base_c, plus_c, total = {}, [], [], []
    for t in range(8):
        res = []
        for _ in range(4):
            base = bool(rng.random() < 0.6)
            plus = base and bool(rng.random() < 0.8)
            res.append({"task_id": f"HumanEval/{t}", "solution": "def f(x):\n    return x\n",
                        "base_status": "pass" if base else "fail",
                        "plus_status": "pass" if plus else "fail",
                        "base_fail_tests": [] if base else [[1]],
                        "plus_fail_tests": [] if plus else [[2]]})  # fmt: skip
        ev[f"HumanEval/{t}"] = res
        total.append(len(res))
        base_c.append(sum(r["base_status"] == "pass" for r in res))
        plus_c.append(sum(r["base_status"] == r["plus_status"] == "pass" for r in res))
    n, b, p = np.array(total), np.array(base_c), np.array(plus_c)
    _write_json(out / "evalplus" / "deepseek-coder-1.3b" / "eval_results.json", {
        "date": "2024-06-01 10:00", "hash": "fe585eb4df8c88d844eeb463ea4d0302", "eval": ev,
        "pass_at_k": {"base": {"pass@1": float(np.mean(b / n))},
                      "plus": {"pass@1": float(np.mean(p / n))}},
    })  # fmt: skip


# ----------------------------------------------------------------------------- long
def make_long(rng: np.random.Generator) -> None:
    out = ROOT / "long"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir()
    rows = ["model,item,correct,subject"]
    for model, skill in (("small", 0.5), ("large", 0.7)):
        for i in range(12):
            rows.append(f"{model},q{i},{int(rng.random() < skill)},{SUBJECTS[i % 4]}")
    (out / "results.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")


def main(root: Path | None = None) -> None:
    """Write every fixture under ``root`` (default: this script's folder)."""
    global ROOT
    if root is not None:
        ROOT = Path(root)
    rng = np.random.default_rng(20240514)
    make_lm_eval(rng)
    make_inspect(rng)
    make_helm(rng)
    make_lighteval(rng)
    make_code(rng)
    make_long(rng)
    size = sum(p.stat().st_size for p in ROOT.rglob("*") if p.is_file())
    print(f"wrote the fixtures under {ROOT} ({size / 1024:.0f} KB in all)")


if __name__ == "__main__":
    main()
