"""Every error text the simulator emits, in one place (API notes §2.2 and §8).

Evidence per text, from the notes: DOC = official docs, 3P-LIVE = quoted verbatim from live
responses by several public repositories, UNVERIFIED = no reliable source; for those the
documented candidate is used and marked here, so a better source changes one line. OURS = no
source at all: the status and error type are the API's, the text is the simulator's own (the
README says so).
"""

from __future__ import annotations

# R2 — 3P-LIVE
FIRST_MESSAGE_ROLE = 'messages: first message must use the "user" role'
EMPTY_MESSAGES = "messages: at least one message is required"  # UNVERIFIED
# R4 — 3P-LIVE
TOO_MANY_BREAKPOINTS = "A maximum of 4 blocks with cache_control may be provided. Found {n}."
# R5 — 3P-LIVE
TTL_ORDER = ("{path}.cache_control.ttl: a ttl='1h' cache_control block must not come after "
             "a ttl='5m' cache_control block.")
# R6 — 3P-LIVE
EMPTY_TEXT_CACHED = "{path}.text: cache_control cannot be set for empty text blocks"
EMPTY_TEXT = "messages: text content blocks must be non-empty"
WHITESPACE_TEXT = "messages: text content blocks must contain non-whitespace text"
# R7 — 3P-LIVE
RESULT_WITHOUT_USE = ("messages.{i}: `tool_result` block(s) provided when previous message does "
                      "not contain any `tool_use` blocks")
# R8 — 3P-LIVE
UNEXPECTED_TOOL_USE_ID = ("messages.{i}.content.{j}: unexpected `tool_use_id` found in "
                          "`tool_result` blocks: {id}. Each `tool_result` block must have a "
                          "corresponding `tool_use` block in the previous message.")
# R9 — DOC (text after the path); path prefix 3P-LIVE
USE_WITHOUT_RESULT = ("messages.{i}: `tool_use` ids were found without `tool_result` blocks "
                      "immediately after: {ids}. Each `tool_use` block must have a corresponding "
                      "`tool_result` block in the next message.")
# R10 — DOC
PREFILL = ("This model does not support assistant message prefill. The conversation must end "
           "with a user message.")
# R11 — 3P-LIVE
MAX_TOKENS_LIMIT = ("max_tokens: {max_tokens} > {limit}, which is the maximum allowed number of "
                    "output tokens for {model}")
# R12 — DOC ("prompt is too long"), number format 3P-LIVE
PROMPT_TOO_LONG = "prompt is too long: {total} tokens > {window} maximum"
# R13 — 3P-LIVE
INPUT_PLUS_MAX = ("input length and `max_tokens` exceed context limit: {total} + {max_tokens} > "
                  "{window}, decrease input length or `max_tokens` and try again")
# R14 — DOC / 3P-LIVE
THINKING_MODIFIED = ("messages.{i}.content.{j}: `thinking` or `redacted_thinking` blocks in the "
                     "latest assistant message cannot be modified. These blocks must remain as "
                     "they were in the original response.")
THINKING_SIGNATURE = "messages.{i}.content.{j}: Invalid `signature` in `thinking` block"
# R15 — UNVERIFIED
THINKING_FORCED_TOOL = ("Thinking may not be enabled when tool_choice forces tool use.")
MAX_TOKENS_ZERO = "max_tokens: 0 cannot be combined with {what}"  # UNVERIFIED
# R24 — UNVERIFIED
AUTO_CACHE_TTL_CONFLICT = ("cache_control: the last cacheable block already has a cache_control "
                           "with a different ttl")
# R27, R30, R32 — UNVERIFIED
EXTRA_INPUT = "{field}: Extra inputs are not permitted"
CLEAR_THINKING_FIRST = ("context_management.edits.{i}: clear_thinking_20251015 must be the first "
                        "edit when combined with other edits")
COMPACT_TRIGGER_LOW = ("context_management.edits.{i}.trigger.value: the compaction trigger must "
                       "be at least 50000 input tokens")
COMPACT_UNSUPPORTED = "context_management.edits.{i}: compaction is not supported on {model}"
# Tool definitions and tool_choice (API notes §3.6). 3P-LIVE: tool name pattern (live probes
# on claude-sonnet-5, 2026), name length (anthropics/claude-code#96152), unique names
# (eclipse-theia/theia#16122, microsoft/vscode#278073), invalid schema
# (anthropics/claude-code#86664), non-object schema (several CLI --json-schema reports).
TOOL_NAME_PATTERN = "{path}.name: String should match pattern '^[a-zA-Z0-9_-]{{1,128}}$'"
TOOL_NAME_LONG = "{path}.name: String should have at most {limit} characters"
TOOL_NAME_SHORT = "{path}.name: String should have at least 1 character"  # UNVERIFIED
TOOL_NAMES_UNIQUE = "tools: Tool names must be unique."
SCHEMA_NOT_OBJECT = "{path}.type: Input should be 'object'"
# 3P-LIVE, one report (Hmbown/Codewhale#4329, quoting the API)
SCHEMA_TOP_LEVEL_COMBINATOR = ("{path}: input_schema does not support oneOf, allOf, or anyOf "
                               "at the top level")
SCHEMA_INVALID = ("{path}: JSON schema is invalid. It must match JSON Schema draft 2020-12 "
                  "(https://json-schema.org/draft/2020-12). Learn more about tool use at "
                  "https://platform.claude.com/docs/en/agents-and-tools/tool-use/overview.")
TOOL_CHOICE_UNKNOWN = "tool_choice.name: no tool named '{name}' in tools"  # OURS
TOOL_CHOICE_NO_TOOLS = "tool_choice: a forced tool_choice requires tools"  # OURS
# Messages — 3P-LIVE (ianarawjo/ChainForge#271)
SYSTEM_ROLE = ('messages: Unexpected role "system". The Messages API accepts a top-level '
               '`system` parameter, not "system" as an input message role.')
# Images — 3P-LIVE: size (a Claude Code session's error), media type (several reports, e.g. a
# BMP read by Claude Code), dimensions (many reports); base64: weak (client test fixtures)
IMAGE_TOO_BIG = "{path}: image exceeds 5 MB maximum: {size} bytes > {limit} bytes"
IMAGE_MEDIA_TYPE = ("{path}.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' "
                    "or 'image/webp'")
IMAGE_BASE64 = "{path}.data: invalid base64 data"
IMAGE_DIMENSIONS = ("{path}.data: At least one of the image dimensions exceed max allowed size: "
                    "{limit} pixels")
# Thinking and sampling — 3P-LIVE (budget, max_tokens, temperature with thinking: client
# notes quoting live 400s; temperature range and temperature with top_p: live reports on 4.5+)
BUDGET_MIN = "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
BUDGET_OVER_MAX = "`max_tokens` must be greater than `thinking.budget_tokens`."
TEMPERATURE_THINKING = "`temperature` may only be set to 1 when thinking is enabled"
TEMPERATURE_TOP_P = ("`temperature` and `top_p` cannot both be specified for this model. "
                     "Please use only one.")
RANGE_MAX = "{path}: Input should be less than or equal to {limit}"
RANGE_MIN = "{path}: Input should be greater than or equal to {limit}"
# Headers, body guards and threads — header 3P-LIVE; the rest OURS (status and type as the API)
MISSING_VERSION = "anthropic-version: header is required"
LONE_SURROGATE = "There was an error parsing the body: lone surrogate in a string at {path}"
TOO_DEEP = "There was an error parsing the body: nesting deeper than {limit} levels"
THREAD_UNSUPPORTED = ("thread: this server keeps no conversation state; send the full "
                      "conversation without `thread`")
# anthropic-beta — 3P-LIVE (sim/betas.py names the reports)
UNKNOWN_BETA = ("Unexpected value(s) {values} for the `anthropic-beta` header. Please consult our "
                "documentation at docs.anthropic.com or try again without the header.")
# Server-side fallbacks (SDK docstring of ``fallbacks``; texts OURS) and fallback credit
FALLBACK_MODEL = "fallbacks.{i}.model: {model} cannot serve as a fallback"
FALLBACK_SAME = "fallbacks.{i}.model: a fallback must differ from the requested model"
FALLBACK_CREDIT = ("fallback_credit_token: no refusal issued this token (this server's model "
                   "never declines a request)")
# Schema errors: pydantic-style wording, as the API uses
FIELD_REQUIRED = "{path}: Field required"
WRONG_TYPE = "{path}: Input should be {expected}"
UNKNOWN_TAG = ("{path}: Input tag '{tag}' found using 'type' does not match any of the expected "
               "tags: {expected}")
BAD_JSON = "There was an error parsing the body: {detail}"
BAD_CONTENT_LENGTH = "content-length: Input should be a non-negative integer"  # UNVERIFIED
# 401 / 404 — 3P-LIVE
MISSING_KEY = "x-api-key header is required"
INVALID_KEY = "invalid x-api-key"
UNKNOWN_MODEL = "model: {model}"
NOT_FOUND = "Not found"
# Faults — 3P-LIVE (R38, R39), weak (500). The rate-limit text names the limit that was hit:
# "input tokens", "output tokens" (3P-LIVE, several live captures) or "requests" (one capture).
RATE_LIMITED = ("This request would exceed the rate limit for your organization ({org}) of "
                "{limit:,} {unit} per minute. For details, refer to: "
                "https://docs.claude.com/en/api/rate-limits. You can see the response headers "
                "for current usage. Please reduce the prompt length or the maximum tokens "
                "requested, or try again later. You may also contact sales at "
                "https://www.anthropic.com/contact-sales to discuss your options for a rate "
                "limit increase.")
OVERLOADED = "Overloaded"
INTERNAL = "Internal server error"

# Placeholder written over a cleared tool result (R28) — UNVERIFIED wording
CLEARED_RESULT = "[tool result cleared by context management]"
RESOURCE_NOT_FOUND = "The requested resource could not be found."  # DOC (errors page example)

# Message Batches (DOC batch-processing: limits, custom_id pattern, the parameters a batch
# refuses); texts pydantic-style as the API's schema errors are — UNVERIFIED; OURS where marked
BATCH_TOO_FEW = "requests: List should have at least 1 item after validation, not 0"
BATCH_TOO_MANY = "requests: List should have at most {limit} items after validation, not {n}"
CUSTOM_ID_PATTERN = "{path}: String should match pattern '^[a-zA-Z0-9_-]{{1,64}}$'"
CUSTOM_ID_DUPLICATE = ("requests.{i}.custom_id: custom_id '{id}' is already used by another "
                       "request in this batch; each must be unique")  # OURS
BATCH_STREAM = "stream: Input should be False"
BATCH_NOT_ENDED = ("Message Batch {id} has not ended yet; cancel it and wait for it to end "
                   "before you delete it")  # OURS
BATCH_NO_RESULTS = "Message Batch {id} has not ended yet; its results are not ready"  # OURS
