#pragma once
// What a config must pass before it is parsed: `plan --from FILE` and the Plan page's Open config… read
// files through importConfigFile, which applies every cap here first (docs/framework-configs.md, "Limits
// on what is read").
//
// - At most kMaxConfigBytes are read; a larger file, and anything that is not a regular file (/dev/zero,
//   a FIFO, a directory), is refused without reading it whole.
// - Objects, arrays and tables nest at most kMaxNestingDepth deep, a TOML dotted key's parts and a YAML
//   block's indentation levels included; checked by a scan of the text before any parser runs (the
//   parsers recurse, and nesting 100,000 deep overflows the stack).
// - A value or key quoted in a message is cut to kMaxEchoChars characters.
// Every refusal is a SpecError: field "file" for size, type and nesting, the key's path for a value.

#include "shardwise/frameworks/configs.hpp"

#include <cstddef>
#include <string>
#include <string_view>

namespace shardwise::frameworks {

// Real ds_config.json, Accelerate YAML and torchtitan TOML files are a few KB; DeepSpeed's, Accelerate's
// and torchtitan's own examples are all under 10 KB.
inline constexpr std::size_t kMaxConfigBytes = 1024 * 1024;
// Published configs nest a few levels (torchtitan's [quantize.linear.float8] filter_fqns = [...] is four).
inline constexpr int kMaxNestingDepth = 32;
inline constexpr std::size_t kMaxEchoChars = 80;

// `s` as a message quotes it: whole when at most `max` characters, else its first `max` characters and
// "… (N bytes)". Control characters are written as '?'.
std::string clipForMessage(std::string_view s, std::size_t max = kMaxEchoChars);

// The format a file is read as: from its name's extension (.json, .yaml / .yml, .toml), else from the
// text (a JSON object is a ds_config, a first line that is a [section] header is TOML, the rest YAML).
ConfigFormat configFormatFor(std::string_view text, std::string_view fileName);

// SpecError("file", ...) when `text` is empty (nothing but blanks and, for YAML and TOML, comments)
// or nests deeper than kMaxNestingDepth read as `format`; `name` is how the message names the file.
void checkConfigText(std::string_view text, ConfigFormat format, const std::string& name);

// The text of a config file, at most kMaxConfigBytes: SpecError("file", ...) for a path that is not a
// regular file, cannot be opened, or is larger.
std::string readConfigFile(const std::string& path);

} // namespace shardwise::frameworks
