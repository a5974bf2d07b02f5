"""Two mock HELM clients for the `simple_classification` scenario (parity of a number).

Each answers the parity of the last "Number: N" in the prompt, right with a per-model
probability, from a RNG seeded by (model, N): deterministic, and different per model.
Registered for HELM in prod_env/model_deployments.yaml (class_name helm_mock_client....).
"""

import random
import re
from typing import Any

from helm.clients.client import CachingClient
from helm.common.cache import CacheConfig
from helm.common.request import GeneratedOutput, Request, RequestResult, Token, wrap_request_time

P_RIGHT = {"mock/parity-a": 0.8, "mock/parity-b": 0.5}


class MockParityClient(CachingClient):
    def __init__(self, cache_config: CacheConfig):
        super().__init__(cache_config=cache_config)

    def make_request(self, request: Request) -> RequestResult:
        raw = {"model": request.model, "prompt": request.prompt}

        def do_it() -> dict[str, Any]:
            n = int(re.findall(r"Number: (\d+)", request.prompt)[-1])
            rng = random.Random(f"{request.model}/{n}")
            right = "Even" if n % 2 == 0 else "Odd"
            wrong = "Odd" if right == "Even" else "Even"
            text = " " + (right if rng.random() < P_RIGHT[request.model] else wrong)
            return {"completions": [text] * request.num_completions}

        response, cached = self.cache.get(
            CachingClient.make_cache_key(raw, request), wrap_request_time(do_it)
        )
        completions = [
            GeneratedOutput(text=t, logprob=0.0, tokens=[Token(text=t, logprob=0.0)])
            for t in response["completions"]
        ]
        return RequestResult(
            success=True,
            cached=cached,
            request_time=response["request_time"],
            request_datetime=response.get("request_datetime"),
            completions=completions,
            embedding=[],
        )
