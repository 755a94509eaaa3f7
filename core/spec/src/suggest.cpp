#include "shardwise/spec/suggest.hpp"

#include <algorithm>
#include <cctype>

namespace shardwise {

namespace {

char lower(char c)
{
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

} // namespace

std::size_t editDistance(std::string_view a, std::string_view b)
{
    // Optimal string alignment: Levenshtein's three edits plus swapping two neighbours ("jsno").
    std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
        previous[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const bool same = lower(a[i - 1]) == lower(b[j - 1]);
            row[j] = std::min({ previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (same ? 0 : 1) });
            if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]))
                row[j] = std::min(row[j], before[j - 2] + 1);
        }
        before.swap(previous);
        previous.swap(row);
    }
    return previous[b.size()];
}

std::vector<std::string> nearestNames(std::string_view word, const std::vector<std::string>& known)
{
    if (word.empty())
        return {};
    std::vector<std::string> best;
    std::size_t bestDistance = 0;
    for (const std::string& name : known) {
        if (name == word)
            return {}; // it is known: nothing to suggest
        const std::size_t d = editDistance(word, name);
        const std::size_t shorter = std::min(word.size(), name.size());
        if (d > std::max<std::size_t>(1, std::min<std::size_t>(3, shorter / 3)))
            continue; // too far from this one to be a typo of it
        if (best.empty() || d < bestDistance) {
            best = { name };
            bestDistance = d;
        } else if (d == bestDistance && std::find(best.begin(), best.end(), name) == best.end()) {
            best.push_back(name);
        }
    }
    if (!best.empty())
        return best;
    // A prefix of exactly one name ("qwen2.5-7" for "qwen2.5-7b", "--gpus-per" for "--gpus-per-node").
    std::vector<std::string> longer;
    for (const std::string& name : known)
        if (name.size() > word.size()
            && std::equal(word.begin(), word.end(), name.begin(), [](char x, char y) { return lower(x) == lower(y); }))
            longer.push_back(name);
    if (longer.size() == 1)
        return longer;
    return {};
}

std::string didYouMean(std::string_view word, const std::vector<std::string>& known)
{
    const std::vector<std::string> names = nearestNames(word, known);
    if (names.empty())
        return {};
    std::string text = "; did you mean ";
    for (std::size_t i = 0; i < names.size(); ++i)
        text += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + ("'" + names[i] + "'");
    return text + "?";
}

} // namespace shardwise
