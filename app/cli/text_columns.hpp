#pragma once
// Fixed-width text columns for the CLI's tables: a value shorter than its column is padded with spaces
// on the side away from its alignment; one that fills the column keeps one space toward its neighbour.

#include <cstddef>
#include <string>

namespace shardwise::cli {

// Left-aligned in `width` characters.
inline std::string padRight(std::string s, std::size_t width)
{
    return s.size() < width ? s + std::string(width - s.size(), ' ') : s + " ";
}

// Right-aligned in `width` characters.
inline std::string padLeft(std::string s, std::size_t width)
{
    return s.size() < width ? std::string(width - s.size(), ' ') + s : " " + s;
}

// padLeft when `right` (numbers), else padRight.
inline std::string pad(std::string s, std::size_t width, bool right = false)
{
    return right ? padLeft(std::move(s), width) : padRight(std::move(s), width);
}

} // namespace shardwise::cli
