"""The PyTorch backend of Shardwise: DDP and FSDP2 (fully_shard) measured with the native runner's
protocol (docs/torch-backend.md). Standard library only at import time: torch is imported by the
modules that need it, so --help, --version and config errors work where torch is missing."""
