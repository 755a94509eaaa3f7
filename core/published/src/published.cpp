#include "shardwise/published/published.hpp"

#include "shardwise/spec/json.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>

namespace shardwise::published {

using nlohmann::json;

namespace {

// Reads one JSON object and names the file and path of whatever is wrong with it.
class Reader {
public:
    Reader(const json& j, std::string where)
        : m_j(j)
        , m_where(std::move(where))
    {
        if (!j.is_object())
            fail("", "expected an object, got " + std::string(j.type_name()));
    }

    [[noreturn]] void fail(const std::string& field, const std::string& why) const
    {
        throw PublishedError(at(field) + ": " + why);
    }
    std::string at(const std::string& field) const { return field.empty() ? m_where : m_where + "." + field; }
    bool has(const std::string& field) const { return m_j.contains(field) && !m_j.at(field).is_null(); }
    const json& raw(const std::string& field) const { return m_j.at(field); }

    std::string text(const std::string& field, bool required = false) const
    {
        if (!has(field)) {
            if (required)
                fail(field, "a value is required");
            return {};
        }
        if (!m_j.at(field).is_string())
            fail(field, "expected a string, got " + m_j.at(field).dump());
        const std::string s = m_j.at(field).get<std::string>();
        if (required && s.empty())
            fail(field, "must not be empty");
        return s;
    }
    std::optional<double> number(const std::string& field, double lo, double hi) const
    {
        if (!has(field))
            return std::nullopt;
        if (!m_j.at(field).is_number())
            fail(field, "expected a number, got " + m_j.at(field).dump());
        const double v = m_j.at(field).get<double>();
        if (!std::isfinite(v) || v < lo || v > hi)
            fail(field, "must be in [" + json(lo).dump() + ", " + json(hi).dump() + "], got " + m_j.at(field).dump());
        return v;
    }
    Reader object(const std::string& field) const
    {
        if (!has(field))
            fail(field, "an object is required");
        return Reader(m_j.at(field), at(field));
    }

private:
    const json& m_j;
    std::string m_where;
};

MemoryFigure readMemory(const Reader& r)
{
    MemoryFigure m;
    const auto value = r.number("value", 0, 1e9);
    if (!value)
        r.fail("value", "a value is required");
    m.value = *value;
    m.unit = r.text("unit", true);
    if (m.unit != "GiB" && m.unit != "GB")
        r.fail("unit", "expected GiB or GB, got '" + m.unit + "'");
    m.printedUnit = r.text("printed_unit");
    m.kind = r.text("kind", true);
    static const std::set<std::string> kinds { "reserved",   "allocated",    "active",
                                               "nvidia-smi", "model states", kNotStated };
    if (!kinds.count(m.kind))
        r.fail("kind",
               "expected reserved, allocated, active, nvidia-smi, model states or not stated, got '" + m.kind + "'");
    if (r.has("kind_stated")) {
        if (!r.raw("kind_stated").is_boolean())
            r.fail("kind_stated", "expected true or false");
        m.kindStated = r.raw("kind_stated").get<bool>();
    }
    m.kindNote = r.text("kind_note");
    return m;
}

PublishedFigures readFigures(const Reader& r, const json& raw, CellKind kind)
{
    // Free text may ride along in "*_note" fields; any other unknown key is a typo of a figure.
    static const std::set<std::string> known {
        "tokens_per_s_per_gpu", "step_time_s",          "mfu",     "hfu",      "memory",
        "device_memory",        "host_memory_per_node", "outcome", "statement"
    };
    for (const auto& [key, value] : raw.items())
        if (!known.count(key) && !(key.size() > 5 && key.compare(key.size() - 5, 5, "_note") == 0))
            r.fail(key,
                   "unknown figure; known: tokens_per_s_per_gpu, step_time_s, mfu, hfu, memory, device_memory, "
                   "host_memory_per_node, outcome, statement, *_note");
    PublishedFigures f;
    f.tokensPerSPerGpu = r.number("tokens_per_s_per_gpu", 0, 1e9);
    f.stepTimeS = r.number("step_time_s", 0, 1e7);
    f.mfu = r.number("mfu", 0, 1);
    f.hfu = r.number("hfu", 0, 1);
    if (r.has("memory"))
        f.memory = readMemory(r.object("memory"));
    if (r.has("device_memory"))
        f.deviceMemory = readMemory(r.object("device_memory"));
    if (r.has("host_memory_per_node"))
        f.hostMemoryPerNode = readMemory(r.object("host_memory_per_node"));
    f.outcome = r.text("outcome");
    f.statement = r.text("statement");
    if (kind == CellKind::Training) {
        if (f.outcome != "completed" && f.outcome != "oom")
            r.fail("outcome", "a training cell is 'completed' or 'oom', got '" + f.outcome + "'");
        if (f.outcome == "completed" && !f.tokensPerSPerGpu && !f.stepTimeS && !f.memory && f.statement.empty())
            r.fail("",
                   "a completed training cell needs tokens_per_s_per_gpu, step_time_s, memory or the statement that it "
                   "fit");
        if (f.outcome == "oom" && f.statement.empty())
            r.fail("statement", "an OOM cell quotes what the source says");
    } else if (kind == CellKind::ModelStates && !f.deviceMemory) {
        r.fail("device_memory", "a model-states cell needs its per-device figure");
    } else if (kind == CellKind::Statement && f.statement.empty()) {
        r.fail("statement", "a statement cell needs its statement");
    }
    return f;
}

CellKind parseKind(const Reader& r, const std::string& field, const std::string& id)
{
    if (id == "training")
        return CellKind::Training;
    if (id == "model_states")
        return CellKind::ModelStates;
    if (id == "statement")
        return CellKind::Statement;
    r.fail(field, "expected training, model_states or statement, got '" + id + "'");
}

// Later objects override earlier ones field by field.
json merged(const json& base, const json& over)
{
    json out = base.is_object() ? base : json::object();
    if (over.is_object())
        for (const auto& [k, v] : over.items())
            out[k] = v;
    return out;
}

void checkAssumptions(const json& a, const std::string& where)
{
    if (!a.is_object())
        throw PublishedError(where + ": expected an object");
    for (const auto& [k, v] : a.items()) {
        if (!v.is_object() || !v.contains("value") || !v.contains("reason") || !v.at("reason").is_string()
            || v.at("reason").get<std::string>().empty())
            throw PublishedError(where + "." + k + ": expected {\"value\": ..., \"reason\": \"why\"}");
    }
}

bool notStated(const json& v)
{
    return v.is_null() || (v.is_string() && v.get<std::string>() == kNotStated);
}

} // namespace

std::string_view cellKindId(CellKind k)
{
    switch (k) {
    case CellKind::Training:
        return "training";
    case CellKind::ModelStates:
        return "model_states";
    case CellKind::Statement:
        return "statement";
    }
    return "training";
}

double MemoryFigure::bytes() const
{
    return value * (unit == "GiB" ? kGiB : 1e9);
}

std::filesystem::path defaultDirectory()
{
    // An installed program carries the sources in share/shardwise/published beside its bin/; a build
    // reads them from the source tree it was built from.
    std::error_code ec;
    const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        const std::filesystem::path installed = exe.parent_path().parent_path() / "share" / "shardwise" / "published";
        if (std::filesystem::is_directory(installed, ec))
            return installed;
    }
    return SHARDWISE_PUBLISHED_SOURCE_DIR;
}

Source loadSource(const std::filesystem::path& file)
{
    const std::string name = file.filename().string();
    std::ifstream in(file);
    if (!in)
        throw PublishedError(name + ": cannot be read");
    json doc;
    try {
        doc = json::parse(in);
    } catch (const json::parse_error& e) {
        throw PublishedError(name + ": not valid JSON: " + e.what());
    }
    const Reader r(doc, name);
    if (r.text("format", true) != "shardwise-published")
        r.fail("format", "expected \"shardwise-published\"");
    if (r.number("version", 1, 1) != 1.0)
        r.fail("version", "expected 1");
    Source s;
    s.file = file;
    s.id = r.text("id", true);
    if (file.stem().string() != s.id)
        r.fail("id", "must equal the file name without .json ('" + file.stem().string() + "')");
    const Reader c = r.object("citation");
    s.citation = { c.text("title", true), c.text("authors", true), c.text("url", true),
                   c.text("date", true),  c.text("version", true), c.text("location", true) };
    s.summary = r.text("summary", true);
    if (r.has("notes")) {
        if (!r.raw("notes").is_array())
            r.fail("notes", "expected an array of strings");
        for (const json& n : r.raw("notes")) {
            if (!n.is_string())
                r.fail("notes", "expected an array of strings");
            s.notes.push_back(n.get<std::string>());
        }
    }
    json defaultsSetup = json::object(), defaultsAssumptions = json::object();
    std::string defaultKind = "training";
    if (r.has("defaults")) {
        const Reader d = r.object("defaults");
        defaultKind = d.text("kind").empty() ? defaultKind : d.text("kind");
        if (d.has("setup")) {
            (void)d.object("setup"); // throws unless an object
            defaultsSetup = d.raw("setup");
        }
        if (d.has("assumptions")) {
            defaultsAssumptions = d.raw("assumptions");
            checkAssumptions(defaultsAssumptions, d.at("assumptions"));
        }
    }
    if (!r.has("cells") || !r.raw("cells").is_array())
        r.fail("cells", "expected an array of cells");
    std::set<std::string> ids;
    for (std::size_t i = 0; i < r.raw("cells").size(); ++i) {
        const Reader cr(r.raw("cells")[i], name + ": cells[" + std::to_string(i) + "]");
        Cell cell;
        cell.id = cr.text("id", true);
        if (!ids.insert(cell.id).second)
            cr.fail("id", "'" + cell.id + "' is used twice");
        cell.location = cr.text("location", true);
        cell.kind = parseKind(cr, "kind", cr.text("kind").empty() ? defaultKind : cr.text("kind"));
        if (cr.has("setup") && !cr.raw("setup").is_object())
            cr.fail("setup", "expected an object");
        cell.setup = merged(defaultsSetup, cr.has("setup") ? cr.raw("setup") : json::object());
        if (cr.has("assumptions"))
            checkAssumptions(cr.raw("assumptions"), cr.at("assumptions"));
        cell.assumptions = merged(defaultsAssumptions, cr.has("assumptions") ? cr.raw("assumptions") : json::object());
        if (!cr.has("published"))
            cr.fail("published", "the figures as published are required");
        cell.published = readFigures(cr.object("published"), cr.raw("published"), cell.kind);
        if (cr.has("predictable")) {
            if (!cr.raw("predictable").is_boolean())
                cr.fail("predictable", "expected true or false");
            cell.predictable = cr.raw("predictable").get<bool>();
        }
        cell.notPredictableReason = cr.text("not_predictable_reason");
        if (cell.kind == CellKind::Statement)
            cell.predictable = false;
        if (!cell.predictable && cell.notPredictableReason.empty())
            cr.fail("not_predictable_reason", "a cell that is not predictable says why");
        cell.predictionNote = cr.text("prediction_note");
        if (cr.has("unknowable")) {
            const json& u = cr.raw("unknowable");
            if (!u.is_object())
                cr.fail("unknowable", "expected an object of throughput / memory / verdict -> reason");
            for (const auto& [what, why] : u.items()) {
                if (what != "throughput" && what != "memory" && what != "verdict")
                    cr.fail("unknowable." + what, "expected throughput, memory or verdict");
                if (!why.is_string() || why.get<std::string>().empty())
                    cr.fail("unknowable." + what, "the reason is required");
                cell.unknowable[what] = why.get<std::string>();
            }
        }
        s.cells.push_back(std::move(cell));
    }
    if (s.cells.empty())
        r.fail("cells", "a source has at least one cell");
    return s;
}

std::vector<Source> loadDirectory(const std::filesystem::path& dir)
{
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec))
        throw PublishedError(dir.string() + ": not a directory");
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir))
        if (entry.is_regular_file() && entry.path().extension() == ".json")
            files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    std::vector<Source> out;
    std::set<std::string> ids;
    for (const auto& f : files) {
        out.push_back(loadSource(f));
        if (!ids.insert(out.back().id).second)
            throw PublishedError(f.filename().string() + ": id '" + out.back().id + "' is used by another file");
    }
    return out;
}

ResolvedField resolve(const Cell& cell, const std::string& field)
{
    if (cell.setup.contains(field) && !notStated(cell.setup.at(field)))
        return { cell.setup.at(field), false };
    if (cell.assumptions.contains(field))
        return { cell.assumptions.at(field).at("value"), true };
    return { json(nullptr), false };
}

namespace {

// Reads the fields the planner needs, recording which ones an assumption supplied; the first field
// that neither the source nor an assumption gives ends the build with its name.
class InputReader {
public:
    InputReader(const Cell& cell, CellInput& out)
        : m_cell(cell)
        , m_out(out)
    {
    }
    std::optional<json> get(const std::string& field, bool required = true)
    {
        const ResolvedField r = resolve(m_cell, field);
        if (r.value.is_null()) {
            if (required && m_out.reason.empty())
                m_out.reason = field + " is not stated and no assumption gives it";
            return std::nullopt;
        }
        if (r.assumed)
            m_out.assumed.push_back(field);
        return r.value;
    }
    std::optional<std::string> text(const std::string& field, bool required = true)
    {
        auto v = get(field, required);
        if (!v)
            return std::nullopt;
        if (!v->is_string())
            return bad(field, "expected a string");
        return v->get<std::string>();
    }
    std::optional<double> number(const std::string& field, bool required = true)
    {
        auto v = get(field, required);
        if (!v)
            return std::nullopt;
        if (!v->is_number())
            return bad(field, "expected a number");
        return v->get<double>();
    }
    std::optional<bool> flag(const std::string& field, bool required = true)
    {
        auto v = get(field, required);
        if (!v)
            return std::nullopt;
        if (!v->is_boolean())
            return bad(field, "expected true or false");
        return v->get<bool>();
    }
    std::nullopt_t bad(const std::string& field, const std::string& why)
    {
        if (m_out.reason.empty())
            m_out.reason = field + ": " + why;
        return std::nullopt;
    }

private:
    const Cell& m_cell;
    CellInput& m_out;
};

std::optional<PrecisionPolicy> precisionFrom(const std::string& id)
{
    if (id == "bf16")
        return PrecisionPolicy::PureBf16;
    if (id == "bf16-fp32-master")
        return PrecisionPolicy::Bf16Fp32Master;
    return std::nullopt;
}

CellInput failed(CellInput& out, std::string reason)
{
    out.reason = std::move(reason);
    out.ok = false;
    return out;
}

} // namespace

CellInput buildInput(const Cell& cell, const PresetCatalog& catalog)
{
    CellInput out;
    if (!cell.predictable) {
        out.reason = cell.notPredictableReason;
        return out;
    }
    InputReader r(cell, out);
    const auto strategyText = r.text("strategy");
    const auto precisionText = r.text("precision_policy");
    const auto targetText = r.text("framework_target");
    if (!out.reason.empty())
        return out;
    const auto strategy = strategyFromId(*strategyText);
    if (!strategy)
        return failed(out, "strategy: unknown '" + *strategyText + "'; known: " + strategyIdList());
    const auto precision = precisionFrom(*precisionText);
    if (!precision)
        return failed(out, "precision_policy: expected bf16 or bf16-fp32-master, got '" + *precisionText + "'");
    const auto framework = frameworkFromId(*targetText);
    if (!framework)
        return failed(out, "framework_target: unknown '" + *targetText + "'; known: " + frameworkIdList());
    if (!frameworkSupports(*framework, *strategy))
        return failed(out, std::string(frameworkId(*framework)) + " cannot express " + *strategyText);
    out.strategy = *strategy;

    if (cell.kind == CellKind::ModelStates) {
        const auto params = r.number("params");
        const auto world = r.number("world_size");
        if (!out.reason.empty())
            return out;
        if (*params < 1 || *world < 1)
            return failed(out, "params and world_size must be positive");
        out.params = *params;
        out.world = static_cast<int>(*world);
        if (*framework != Framework::Native && *framework != Framework::DeepSpeed)
            return failed(out,
                          "framework_target: model-state cells are predicted for native (the ZeRO paper's "
                          "partitioning) or deepspeed (its estimator), not "
                              + *targetText);
        if (*framework == Framework::DeepSpeed && traits(*strategy).shardsParameters) {
            const auto largest = r.number("largest_layer_params");
            if (!out.reason.empty())
                return out;
            if (*largest < 0 || *largest > *params)
                return failed(out, "largest_layer_params must be in [0, params]");
            out.largestLayerParams = *largest;
        }
        out.input.training.precision = *precision;
        out.input.framework.framework = *framework;
        out.ok = true;
        return out;
    }

    EstimateInput& in = out.input;
    const auto modelId = r.text("model_preset");
    const auto gpuId = r.text("gpu_preset");
    if (!out.reason.empty())
        return out;
    const ModelSpec* model = catalog.findModel(*modelId);
    const GpuSpec* gpu = catalog.findGpu(*gpuId);
    if (!model)
        return failed(out, "model_preset: no preset '" + *modelId + "'");
    if (!gpu)
        return failed(out, "gpu_preset: no preset '" + *gpuId + "'");
    in.model = *model;
    in.gpu = *gpu;
    const auto perNode = r.number("gpus_per_node");
    const auto nodes = r.number("nodes");
    const auto link = r.text("intra_node");
    const auto interNode = r.number("inter_node_gbps", false);
    const auto microBatch = r.number("micro_batch");
    const auto seq = r.number("seq_len");
    const auto accumulation = r.number("grad_accumulation");
    const auto checkpointing = r.text("activation_checkpointing");
    const auto compiled = r.flag("torch_compile", false);
    const auto float8 = r.flag("float8", false);
    // framework_version is the source's own wording; framework_release is the MAJOR.MINOR the planner
    // models (absent or empty: its default release).
    const auto version = r.text("framework_release", false);
    const auto hostRam = r.number("host_ram_gib", false);
    // The flash attention kernel SDPA ran (absent: the one written for the GPU's architecture).
    const auto attentionKernel = r.text("attention_kernel", false);
    if (!out.reason.empty())
        return out;
    if (attentionKernel && *attentionKernel != "flash-attention-2" && *attentionKernel != "cudnn"
        && *attentionKernel != "flash-attention-3")
        return failed(out,
                      "attention_kernel: expected flash-attention-2, flash-attention-3 or cudnn, got '"
                          + *attentionKernel + "'");
    if (attentionKernel)
        in.flashKernel
            = *attentionKernel == "flash-attention-2" ? FlashKernel::FlashAttention2 : FlashKernel::ArchitectureTuned;
    if (float8.value_or(false))
        return failed(out, "Float8 is not modelled by the estimate");
    in.cluster.gpusPerNode = static_cast<int>(*perNode);
    in.cluster.nodes = static_cast<int>(*nodes);
    if (const auto world = resolve(cell, "world_size").value;
        world.is_number() && world.get<int>() != in.cluster.worldSize())
        return failed(out,
                      "gpus_per_node x nodes (" + std::to_string(in.cluster.worldSize()) + ") differs from world_size ("
                          + world.dump() + ")");
    if (*link != "nvlink" && *link != "pcie")
        return failed(out, "intra_node: expected nvlink or pcie, got '" + *link + "'");
    in.cluster.intraNode = *link == "pcie" ? Interconnect::Pcie : Interconnect::NvLink;
    if (interNode)
        in.cluster.interNodeGBps = *interNode;
    else if (in.cluster.nodes > 1)
        return failed(out, "inter_node_gbps is not stated and no assumption gives it (the job spans nodes)");
    if (hostRam)
        in.cluster.hostRamGiB = *hostRam;
    in.training.precision = *precision;
    in.training.microBatch = static_cast<int>(*microBatch);
    in.training.seqLen = static_cast<int>(*seq);
    in.training.gradAccumulation = static_cast<int>(*accumulation);
    if (*checkpointing == "none") {
        in.training.activationCheckpointing = false;
    } else if (*checkpointing == "full" || *checkpointing == "selective") {
        in.training.activationCheckpointing = true;
        in.training.checkpointPolicy = *checkpointing == "full" ? CheckpointPolicy::Full : CheckpointPolicy::Selective;
    } else {
        return failed(out, "activation_checkpointing: expected none, full or selective, got '" + *checkpointing + "'");
    }
    in.framework.framework = *framework;
    in.framework.version = version.value_or("");
    in.framework.compiled = compiled.value_or(false);
    try {
        validate(in);
    } catch (const SpecError& e) {
        return failed(out, std::string("the planner rejects the input: ") + e.what());
    }
    out.ok = true;
    return out;
}

CellPrediction predict(const Cell& cell, const CellInput& input, const Calibration& calibration, double speedFactor)
{
    CellPrediction p;
    if (!input.ok) {
        p.reason = input.reason;
        return p;
    }
    const PublishedFigures& f = cell.published;
    if (cell.kind == CellKind::ModelStates) {
        // The figure of the cell's own target: the ZeRO paper's analysis is the native partitioning
        // (modelStateBytes), DeepSpeed's estimator is the DeepSpeed target's state.
        const protocol::StateBytes s
            = frameworkModelStateBytes(input.input.framework.framework, input.strategy, input.params,
                                       input.largestLayerParams, input.world, input.input.training.precision);
        p.predictedMemoryBytes = static_cast<double>(s.deviceParams + s.deviceGrads + s.deviceOptimizer);
        p.predictedMemoryKind = "model states";
        if (f.deviceMemory && f.deviceMemory->bytes() > 0)
            p.memoryError = p.predictedMemoryBytes / f.deviceMemory->bytes() - 1.0;
        p.ok = true;
        return p;
    }
    const EstimateInput& in = input.input;
    p.estimate = estimate(in, input.strategy, calibration);
    const int world = in.cluster.worldSize();
    p.predictedTokensPerSPerGpu = p.estimate.throughput.tokensPerS / world * speedFactor;
    p.predictedStepS = p.estimate.throughput.stepTimeS / speedFactor;
    p.predictedFits = p.estimate.fits();
    const double tokensPerGpuStep
        = static_cast<double>(in.training.microBatch) * in.training.seqLen * in.training.gradAccumulation;
    if (f.tokensPerSPerGpu) {
        p.publishedTokensPerSPerGpu = f.tokensPerSPerGpu;
    } else if (f.stepTimeS && *f.stepTimeS > 0) {
        p.publishedTokensPerSPerGpu = tokensPerGpuStep / *f.stepTimeS;
        p.throughputDerived = true;
    }
    if (p.publishedTokensPerSPerGpu && f.outcome == "completed" && *p.publishedTokensPerSPerGpu > 0
        && !cell.unknowable.count("throughput"))
        p.tokensError = p.predictedTokensPerSPerGpu / *p.publishedTokensPerSPerGpu - 1.0;
    const MemoryBreakdown& m = p.estimate.memory;
    const std::string kind = f.memory ? f.memory->kind : std::string("reserved");
    if (kind == "allocated" || kind == "active") {
        p.predictedMemoryBytes = m.allocatedPeak();
        p.predictedMemoryKind = "allocated";
    } else if (kind == "reserved") {
        p.predictedMemoryBytes = m.allocatedPeak() + m.fragmentation;
        p.predictedMemoryKind = "reserved";
    } else {
        p.predictedMemoryBytes = m.nvidiaSmiBytes();
        p.predictedMemoryKind = "device total";
    }
    if (f.memory && f.outcome == "completed" && f.memory->bytes() > 0 && !cell.unknowable.count("memory"))
        p.memoryError = p.predictedMemoryBytes / f.memory->bytes() - 1.0;
    if ((f.outcome == "completed" || f.outcome == "oom") && !cell.unknowable.count("verdict"))
        p.verdictWrong = p.predictedFits != (f.outcome == "completed");
    p.ok = true;
    return p;
}

} // namespace shardwise::published
