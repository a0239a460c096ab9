"""Python client of the Engram memory API: `Engram` (blocking) and `AsyncEngram` (asyncio).

from engram_client import Engram
engram = Engram("http://127.0.0.1:8080", "egk_...")
engram.store_memory("The deploy freeze starts on Friday.", tags=["process"])
print(engram.recall("when does the freeze start?").results[0].text)
"""

from engram_client.client import AsyncEngram, Engram
from engram_client.endpoints import UNSET, Call, Expand, NewLink, NewMemory, NewMessage
from engram_client.errors import (
    ApiError,
    BadRequest,
    Conflict,
    ConnectionFailed,
    EngramError,
    Forbidden,
    InvalidField,
    JobFailed,
    NotFound,
    RateLimited,
    ServerError,
    ServiceUnavailable,
    TooLarge,
    Unauthorized,
    UnsupportedMediaType,
    UploadFailed,
    WaitTimedOut,
)
from engram_client.retry import RetryPolicy
from engram_client.transport import __version__
from engram_client.uploads import UploadProgress

__all__ = [
    "UNSET",
    "ApiError",
    "AsyncEngram",
    "BadRequest",
    "Call",
    "Conflict",
    "ConnectionFailed",
    "Engram",
    "EngramError",
    "Expand",
    "Forbidden",
    "InvalidField",
    "JobFailed",
    "NewLink",
    "NewMemory",
    "NewMessage",
    "NotFound",
    "RateLimited",
    "RetryPolicy",
    "ServerError",
    "ServiceUnavailable",
    "TooLarge",
    "Unauthorized",
    "UnsupportedMediaType",
    "UploadFailed",
    "UploadProgress",
    "WaitTimedOut",
    "__version__",
]
