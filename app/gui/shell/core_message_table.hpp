#pragma once
// The GUI's template for each core message id (core_messages.hpp translates with it).

#include <span>

namespace shardwise::gui {

struct CoreMessageTemplate {
    const char* id;
    const char* source;  // the tr() source in context "CoreMessage"
    bool plural = false; // translated with the message's count argument as n (%n)
};

std::span<const CoreMessageTemplate> coreMessageTemplates();

} // namespace shardwise::gui
