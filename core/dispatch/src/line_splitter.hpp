#pragma once
// Splits a byte stream into lines. A line longer than the cap is delivered in pieces so a rank that
// never writes a newline cannot make the launcher's memory grow without bound.

#include <cstddef>
#include <string>
#include <string_view>

namespace shardwise::dispatch::detail {

class LineSplitter {
public:
    explicit LineSplitter(std::size_t maxLine)
        : m_maxLine(maxLine)
    {
    }

    template <typename OnLine> void feed(std::string_view bytes, OnLine&& onLine)
    {
        while (!bytes.empty()) {
            const auto nl = bytes.find('\n');
            const std::string_view piece = bytes.substr(0, nl);
            m_partial.append(piece);
            if (nl == std::string_view::npos) {
                bytes = {};
            } else {
                bytes.remove_prefix(nl + 1);
                deliver(onLine);
                continue;
            }
            while (m_partial.size() >= m_maxLine) {
                const std::string head = m_partial.substr(0, m_maxLine);
                m_partial.erase(0, m_maxLine);
                onLine(std::string_view(head));
            }
        }
    }

    // End of stream: a last line without a newline still counts.
    template <typename OnLine> void finish(OnLine&& onLine)
    {
        if (!m_partial.empty())
            deliver(onLine);
    }

private:
    template <typename OnLine> void deliver(OnLine& onLine)
    {
        if (!m_partial.empty() && m_partial.back() == '\r')
            m_partial.pop_back();
        std::string line;
        line.swap(m_partial);
        onLine(std::string_view(line));
    }

    std::size_t m_maxLine;
    std::string m_partial;
};

} // namespace shardwise::dispatch::detail
