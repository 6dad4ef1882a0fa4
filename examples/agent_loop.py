"""A minimal agent loop over the HTTP API: recall -> prompt -> an OpenAI-compatible model -> retain.

    python examples/agent_loop.py --hindsight http://127.0.0.1:8765 --token T \
        --llm http://localhost:11434/v1 --model qwen2.5 --bank alice "what do I like to drink?"

Needs only this package's remote client (no store, no model here) and any OpenAI-compatible chat API.
"""

from __future__ import annotations

import argparse
import os
import sys

import httpx

from hindsight_es.errors import HindsightError
from hindsight_es.remote import HindsightClient


def answer(hs: HindsightClient, llm: httpx.Client, model: str, bank: str, session: str, message: str) -> str:
    context = hs.context(bank, session, message, budget_tokens=800)  # memories first, then recent turns
    hs.retain(bank, message, session_id=session, role="user")
    reply = llm.post(
        "/chat/completions",
        json={
            "model": model,
            "messages": [
                {"role": "system", "content": "You are a helpful assistant.\n" + context.text},
                {"role": "user", "content": message},
            ],
        },
    )
    reply.raise_for_status()
    text: str = reply.json()["choices"][0]["message"]["content"]
    hs.retain(bank, text, session_id=session, role="assistant", source="assistant")
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("message")
    parser.add_argument("--hindsight", default="http://127.0.0.1:8765")
    parser.add_argument("--token", default=os.environ.get("HINDSIGHT_TOKEN"))
    parser.add_argument("--llm", default="http://localhost:11434/v1", help="OpenAI-compatible API root")
    parser.add_argument("--model", default="qwen2.5")
    parser.add_argument("--api-key", default=os.environ.get("OPENAI_API_KEY"))
    parser.add_argument("--bank", default="me")
    parser.add_argument("--session", default="chat")
    args = parser.parse_args()
    auth = {"Authorization": f"Bearer {args.api_key}"} if args.api_key else {}
    with (
        HindsightClient(args.hindsight, args.token) as hs,
        httpx.Client(base_url=args.llm, headers=auth, timeout=60) as llm,
    ):
        try:
            print(answer(hs, llm, args.model, args.bank, args.session, args.message))
        except HindsightError as exc:  # refused, unknown bank, a token that does not cover it: the API says why
            sys.exit(f"hindsight at {args.hindsight}: {exc}")
        except httpx.HTTPError as exc:  # the model's API: down, or answering an error
            sys.exit(f"the model at {args.llm}: {exc}")


if __name__ == "__main__":
    main()
