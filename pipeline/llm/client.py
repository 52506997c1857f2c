"""A Chat Completions client for any OpenAI-compatible server, shared by the model generator
(`pipeline.generate.llm`) and the model support judge (`pipeline.verify.judges.llm`).

Hosted (OpenAI, Groq, OpenRouter, Mistral…) or local (Ollama, vLLM, llama.cpp's server, LM Studio), through the
official `openai` client. Configured by environment: LLM_BASE_URL, LLM_MODEL, LLM_API_KEY (optional for local
servers), and optionally LLM_TIMEOUT_S, LLM_SEED. A request that gets no usable reply (connection refused, timeout,
401, 429 and 5xx retried with bounded exponential backoff, Retry-After honoured up to a cap) raises
`CompletionFailed` with one line; a reply is read up to a size and a time cap (`reply_cap`). A server that refuses
JSON mode is asked again without it, and not asked for it again. The API key is never logged nor recorded.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError

from pipeline.core.contracts import ChatMessage, GenerationAttempt
from pipeline.core.errors import ConfigError
from pipeline.core.settings import Environment
from pipeline.llm.reply_cap import capped_http_client, reply_too_large, too_large_note

# finish_reason values that mean the output stopped before the model finished it.
CUT_SHORT = {
    "length": "the model's output was cut short at {reserve} tokens (finish_reason length); an incomplete answer "
    "is not shown; raise the reserve",
    "content_filter": "the server's content filter stopped the model's output (finish_reason content_filter)",
}
# Sent when no key is configured: local servers ignore it, the client requires one.
NO_KEY = "no-key"

# Sent when no key is configured: local servers ignore it, the client requires one.
NO_KEY = "no-key"


class LlmConfig(BaseModel):
    """Where the model is and how it is asked; `api_key` is a SecretStr so it never prints."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    base_url: str
    model: str
    api_key: SecretStr | None = None
    temperature: float = 0.0
    seed: int | None = None
    timeout_s: float = Field(60.0, gt=0)
    max_attempts: int = Field(3, ge=1, le=10)
    backoff_s: float = Field(1.0, ge=0)  # first retry's wait; doubles each time
    max_wait_s: float = Field(20.0, ge=0)  # cap on one wait, Retry-After included

    @classmethod
    def configured(cls, environ: Mapping[str, str] | None = None) -> bool:
        env = Environment.read(environ)
        return bool(env.stripped("LLM_BASE_URL") and env.stripped("LLM_MODEL"))

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> LlmConfig:
        """Read LLM_BASE_URL, LLM_MODEL, LLM_API_KEY, LLM_TIMEOUT_S, LLM_SEED; ValueError says what is missing."""
        env = Environment.read(environ)
        missing = [name for name in ("LLM_BASE_URL", "LLM_MODEL") if not env.stripped(name)]
        if missing:
            raise ValueError(f"set {' and '.join(missing)} to use a language model (e.g. LLM_BASE_URL="
                             "http://127.0.0.1:11434/v1 LLM_MODEL=qwen2.5:3b)")
        values: dict = {"base_url": env.stripped("LLM_BASE_URL"), "model": env.stripped("LLM_MODEL")}
        if env.stripped("LLM_API_KEY"):
            values["api_key"] = SecretStr(env.stripped("LLM_API_KEY"))
        for name, field in (("LLM_TIMEOUT_S", "timeout_s"), ("LLM_SEED", "seed")):
            raw = env.stripped(name)
            if raw:
                try:
                    values[field] = float(raw) if field == "timeout_s" else int(raw)
                except ValueError:
                    raise ValueError(f"{name} must be a number, not {env.get(name)!r}") from None
        return cls(**values)

    @property
    def host(self) -> str:
        """host[:port] only: no scheme, credentials, path or query reach the trace."""
        parts = urlsplit(self.base_url)
        host = parts.hostname or "?"
        return f"{host}:{parts.port}" if parts.port else host


class CompletionFailed(Exception):
    """No usable completion (refused, unreachable, timed out, rate-limited past the retries); `note` is one line."""

    def __init__(self, note: str):
        self.note = note
        super().__init__(note)


class _Failure(Exception):
    """A request that gave no usable reply; `note` is the one line the user sees."""

    def __init__(self, note: str, attempt: GenerationAttempt, retry_after: float | None = None, retry: bool = False):
        self.note, self.attempt, self.retry_after, self.retry = note, attempt, retry_after, retry
        super().__init__(note)


class ChatClient:
    """One model server, key, retries and JSON-mode state: `complete` gives a chat completion or raises
    CompletionFailed."""

    def __init__(self, config: LlmConfig, api_key: str | None = None):
        self.config = config
        self._api_key = api_key  # a per-session key overrides the configured one
        self.json_mode = True  # switched off for good once the server refuses it

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, part: str = "llm generator") -> ChatClient:
        """The client the LLM_* environment describes; ConfigError (one line, naming `part`) when it is missing or
        wrong."""
        try:
            return cls(LlmConfig.from_env(environ))
        except ValidationError as error:
            first = error.errors()[0]
            raise ConfigError(part, f"{'.'.join(map(str, first['loc']))}: {first['msg']}") from None
        except ValueError as error:
            raise ConfigError(part, str(error)) from None

    def with_api_key(self, api_key: str | None) -> ChatClient:
        """The same server with a per-session key (empty or None: the configured one)."""
        return ChatClient(self.config, api_key=(api_key or "").strip() or None)

    def _key(self) -> str:
        if self._api_key:
            return self._api_key
        return self.config.api_key.get_secret_value() if self.config.api_key else NO_KEY

    def _client(self):
        from openai import OpenAI  # imported on first use: the app and CLI start without it

        # A reply is read up to a cap. openai takes an httpx client too (openai._httpx2: a "legacy" client), though
        # its types name only its own httpx2.
        capped: Any = capped_http_client(self.config.timeout_s)
        return OpenAI(base_url=self.config.base_url, api_key=self._key(), timeout=self.config.timeout_s, max_retries=0,
                      http_client=capped)

    def complete(self, messages: tuple[ChatMessage, ...], max_tokens: int, attempts: list[GenerationAttempt]):
        """One chat completion with this server, key, retries and JSON-mode fallback; CompletionFailed with a one-line
        note when there is none."""
        try:
            return self._request(messages, max_tokens, attempts)
        except _Failure as failure:
            raise CompletionFailed(failure.note) from None

    def _request(self, messages, max_tokens: int, attempts: list[GenerationAttempt]):
        """One completion, retrying 429 and 5xx with bounded backoff; _Failure when there is none."""
        client, wait = self._client(), 0.0
        try:
            while True:
                try:
                    return self._attempt(client, messages, max_tokens, attempts, wait)
                except _Failure as failure:
                    attempts.append(failure.attempt)
                    if not failure.retry or len(attempts) >= self.config.max_attempts:
                        if len(attempts) > 1:
                            failure.note += f" ({len(attempts)} attempts)"
                        raise
                    backoff = self.config.backoff_s * 2 ** (len(attempts) - 1)
                    wait = min(failure.retry_after if failure.retry_after is not None else backoff, self.config.max_wait_s)
                    time.sleep(wait)
        finally:
            client.close()

    def _attempt(self, client, messages, max_tokens: int, attempts: list[GenerationAttempt], waited: float):
        import openai

        started = time.perf_counter()
        options = {"response_format": {"type": "json_object"}} if self.json_mode else {}
        try:
            completion = client.chat.completions.create(
                model=self.config.model, messages=[m.model_dump() for m in messages], temperature=self.config.temperature,
                max_tokens=max_tokens, **({"seed": self.config.seed} if self.config.seed is not None else {}), **options,
            )
        except openai.APITimeoutError:
            raise _Failure(f"no reply from {self.config.host} within {self.config.timeout_s:g} s (timeout)",
                           _attempt("timeout", None, started, waited)) from None
        except openai.APIConnectionError as error:
            if reply_too_large(error):
                raise _Failure(too_large_note(), _attempt("reply too large", 200, started, waited)) from None
            cause = _root_cause(error)
            raise _Failure(f"cannot reach {self.config.host} ({cause})", _attempt(cause, None, started, waited)) from None
        except openai.APIStatusError as error:
            return self._refused(error, client, messages, max_tokens, attempts, started, waited)
        except (openai.OpenAIError, ValueError) as error:  # e.g. a 200 whose body is not a completion
            raise _Failure(f"{self.config.host} sent a reply that is not a chat completion ({type(error).__name__})",
                           _attempt("invalid completion", 200, started, waited)) from None
        attempts.append(_attempt("ok", 200, started, waited))
        return completion

    def _refused(self, error, client, messages, max_tokens: int, attempts, started: float, waited: float):
        """An HTTP error status: ask again without JSON mode after a 400, else a _Failure (retried if 429/5xx)."""
        status = error.status_code
        if status == 400 and self.json_mode:
            # The server refuses JSON mode (response_format): ask again for plain text with markers.
            attempts.append(_attempt("json mode refused (http 400)", status, started, waited))
            self.json_mode = False
            return self._attempt(client, messages, max_tokens, attempts, 0.0)
        raise _Failure(_status_note(status, self.config), _attempt(f"http {status}", status, started, waited),
                       retry_after=_retry_after(error.response.headers), retry=status == 429 or status >= 500)


def ms_since(started: float) -> float:
    """Milliseconds since `started` (a perf_counter reading), rounded to microseconds."""
    return round((time.perf_counter() - started) * 1000, 3)


def _attempt(outcome: str, status: int | None, started: float, waited: float) -> GenerationAttempt:
    return GenerationAttempt(outcome=outcome, status=status, latency_ms=ms_since(started), waited_s=round(waited, 3))


def _root_cause(error: BaseException) -> str:
    """"connection refused", "name not resolved"… from the exception chain, without any URL."""
    while True:
        below = error.__cause__ or error.__context__
        if below is None:
            break
        error = below
    text = str(error).lower()
    for needle, said in (("refused", "connection refused"), ("name or service", "host name not resolved"),
                         ("nodename", "host name not resolved"), ("ssl", "TLS error"), ("reset", "connection reset")):
        if needle in text:
            return said
    return f"connection error: {type(error).__name__}"


def _status_note(status: int, config: LlmConfig) -> str:
    """Our own words, not the server's: an error body can echo part of the key."""
    if status in (401, 403):
        return f"{config.host} refused the API key (http {status}); check LLM_API_KEY"
    if status == 404:
        return f"{config.host} has no model {config.model!r} or no Chat Completions route (http 404); check LLM_MODEL and LLM_BASE_URL"
    if status == 429:
        return f"{config.host} is rate-limiting requests (http 429)"
    if status >= 500:
        return f"{config.host} failed with a server error (http {status})"
    return f"{config.host} rejected the request (http {status})"


def _retry_after(headers) -> float | None:
    """Seconds from Retry-After-Ms or Retry-After (a number of seconds); None if absent or a date."""
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name) if headers is not None else None
        if value:
            try:
                return max(0.0, float(value) * scale)
            except ValueError:
                continue
    return None
