#include "shardwise/cloud/gke_catalog.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>

namespace shardwise::cloud {

namespace fs = std::filesystem;

CloudError::CloudError(std::string field, const std::string& message)
    : std::runtime_error(message)
    , m_field(std::move(field))
{
}

std::string regionOfZone(const std::string& zone)
{
    const auto dash = zone.rfind('-');
    return dash == std::string::npos ? zone : zone.substr(0, dash);
}

std::string joined(const std::vector<std::string>& items, const std::string& separator)
{
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i)
        out += (i ? separator : std::string()) + items[i];
    return out;
}

std::optional<double> GkeMachineType::memoryGiB() const
{
    if (!memoryGB)
        return std::nullopt;
    return memoryGB; // Google's memory GB are binary (kBytesPerGoogleMemoryGB): already GiB
}

const GkeMachineType* GkeAcceleratorOffer::machineTypeFor(int gpusPerNode) const
{
    for (const auto& m : machineTypes)
        if (m.gpus == gpusPerNode)
            return &m;
    return nullptr;
}

std::vector<const GkeMachineType*> GkeAcceleratorOffer::machineTypesFor(int gpusPerNode) const
{
    std::vector<const GkeMachineType*> out;
    for (const auto& m : machineTypes)
        if (m.gpus == gpusPerNode)
            out.push_back(&m);
    return out;
}

const GkeMachineType* GkeAcceleratorOffer::machineTypeHolding(int gpusPerNode, double hostGiB,
                                                              double usableFraction) const
{
    for (const GkeMachineType* m : machineTypesFor(gpusPerNode))
        if (const std::optional<double> gib = m->memoryGiB(); gib && hostGiB <= *gib * usableFraction)
            return m;
    return nullptr;
}

std::vector<int> GkeAcceleratorOffer::gpuCounts() const
{
    std::vector<int> counts;
    for (const auto& m : machineTypes)
        if (counts.empty() || counts.back() != m.gpus)
            counts.push_back(m.gpus);
    return counts;
}

std::vector<std::string> GkeAcceleratorOffer::zonesIn(const std::string& region,
                                                      const GkeMachineType& machineType) const
{
    const auto& all = machineType.zones.empty() ? zones : machineType.zones;
    std::vector<std::string> out;
    for (const auto& z : all)
        if (regionOfZone(z) == region)
            out.push_back(z);
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<std::string> GkeAcceleratorOffer::regions() const
{
    std::set<std::string> r;
    for (const auto& z : zones)
        r.insert(regionOfZone(z));
    for (const auto& m : machineTypes)
        for (const auto& z : m.zones)
            r.insert(regionOfZone(z));
    return { r.begin(), r.end() };
}

namespace {

class TableReader {
public:
    explicit TableReader(fs::path file)
        : m_file(std::move(file))
    {
    }

    [[noreturn]] void fail(const std::string& field, const std::string& why) const
    {
        throw CloudError("gke_table", m_file.string() + ": " + field + ": " + why);
    }

    const nlohmann::json& member(const nlohmann::json& j, const std::string& key, const std::string& path) const
    {
        if (!j.is_object() || !j.contains(key))
            fail(path + key, "missing");
        return j.at(key);
    }

    std::string text(const nlohmann::json& j, const std::string& key, const std::string& path,
                     bool allowEmpty = false) const
    {
        const auto& v = member(j, key, path);
        if (!v.is_string() || (!allowEmpty && v.get<std::string>().empty()))
            fail(path + key, "expected a non-empty string");
        return v.get<std::string>();
    }

    int positive(const nlohmann::json& j, const std::string& key, const std::string& path) const
    {
        const auto& v = member(j, key, path);
        if (!v.is_number_integer() || v.get<int>() < 1)
            fail(path + key, "expected an integer >= 1");
        return v.get<int>();
    }

    double positiveNumber(const nlohmann::json& j, const std::string& key, const std::string& path) const
    {
        const auto& v = member(j, key, path);
        if (!v.is_number() || !(v.get<double>() > 0))
            fail(path + key, "expected a number > 0");
        return v.get<double>();
    }

    std::vector<std::string> texts(const nlohmann::json& j, const std::string& key, const std::string& path) const
    {
        const auto& v = member(j, key, path);
        if (!v.is_array())
            fail(path + key, "expected an array of strings");
        std::vector<std::string> out;
        for (const auto& s : v) {
            if (!s.is_string() || s.get<std::string>().empty())
                fail(path + key, "expected an array of non-empty strings");
            out.push_back(s.get<std::string>());
        }
        return out;
    }

    std::vector<std::string> zones(const nlohmann::json& j, const std::string& key, const std::string& path) const
    {
        std::vector<std::string> z = texts(j, key, path);
        for (const auto& zone : z)
            if (regionOfZone(zone) == zone)
                fail(path + key, "'" + zone + "' is not a zone name (region-letter)");
        return z;
    }

private:
    fs::path m_file;
};

bool isFile(const fs::path& p)
{
    std::error_code ec;
    return fs::is_regular_file(p, ec);
}

} // namespace

GkeCatalog GkeCatalog::load(const fs::path& file)
{
    const TableReader r(file);
    std::ifstream in(file);
    if (!in)
        throw CloudError("gke_table", file.string() + ": cannot read the GKE table (set SHARDWISE_GKE_TABLE)");
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
        throw CloudError("gke_table", file.string() + ": not JSON: " + e.what());
    }
    GkeCatalog c;
    const auto& src = r.member(j, "source", "");
    c.m_sources
        = { r.text(src, "zones", "source."), r.text(src, "machine_types", "source."), r.text(src, "gke", "source."),
            r.text(src, "transcribed", "source."), r.text(src, "caveat", "source.") };
    const auto& g = r.member(j, "gke", "");
    GkeDefaults& d = c.m_defaults;
    d.imageType = r.text(g, "image_type", "gke.");
    d.driverAutoInstallMinVersion = r.text(g, "driver_auto_install_min_version", "gke.");
    d.driverVersions = r.texts(g, "driver_versions", "gke.");
    d.releaseChannel = r.text(g, "release_channel", "gke.");
    d.globalGpuQuotaMetric = r.text(g, "global_gpu_quota_metric", "gke.");
    d.gpuTaintKey = r.text(g, "gpu_taint_key", "gke.");
    d.gpuResource = r.text(g, "gpu_resource", "gke.");
    d.acceleratorNodeLabel = r.text(g, "accelerator_node_label", "gke.");
    d.zoneLabel = r.text(g, "zone_label", "gke.");
    const auto& sys = r.member(g, "system_pool", "gke.");
    d.systemPool = { r.text(sys, "machine_type", "gke.system_pool."),
                     r.positive(sys, "nodes_per_zone", "gke.system_pool."), r.text(sys, "why", "gke.system_pool.") };
    d.rendezvousPort = r.positive(g, "rendezvous_port", "gke.");
    d.rendezvousPortWhy = r.text(g, "rendezvous_port_why", "gke.");

    const auto& offers = r.member(j, "accelerators", "");
    if (!offers.is_array() || offers.empty())
        r.fail("accelerators", "expected a non-empty array");
    for (std::size_t i = 0; i < offers.size(); ++i) {
        const std::string path = "accelerators[" + std::to_string(i) + "].";
        const auto& o = offers[i];
        GkeAcceleratorOffer a;
        a.accelerator = r.text(o, "accelerator", path);
        a.machineSeries = r.text(o, "machine_series", path);
        a.quotaMetric = r.text(o, "quota_metric", path);
        a.minGkeVersion = r.text(o, "min_gke_version", path, true);
        a.zones = r.zones(o, "zones", path);
        a.notes = r.texts(o, "notes", path);
        const auto& types = r.member(o, "machine_types", path);
        if (!types.is_array() || types.empty())
            r.fail(path + "machine_types", "expected a non-empty array");
        for (std::size_t k = 0; k < types.size(); ++k) {
            const std::string tpath = path + "machine_types[" + std::to_string(k) + "].";
            GkeMachineType m;
            m.name = r.text(types[k], "name", tpath);
            m.gpus = r.positive(types[k], "gpus", tpath);
            if (types[k].contains("zones"))
                m.zones = r.zones(types[k], "zones", tpath);
            if (types[k].contains("note"))
                m.note = r.text(types[k], "note", tpath);
            if (types[k].contains("memory_gb")) // absent: memory unknown, the checklist asks to confirm it
                m.memoryGB = r.positiveNumber(types[k], "memory_gb", tpath);
            for (const GkeMachineType& earlier : a.machineTypes) {
                if (earlier.name == m.name)
                    r.fail(tpath + "name", "'" + m.name + "' listed twice");
                // The first listed for a GPU count is the default, so a count's types go smallest memory first.
                if (earlier.gpus == m.gpus && earlier.memoryGB && m.memoryGB && *m.memoryGB < *earlier.memoryGB)
                    r.fail(tpath + "memory_gb",
                           "machine types with " + std::to_string(m.gpus)
                               + " GPUs must be listed "
                                 "smallest memory first: "
                               + m.name + " has less than " + earlier.name);
            }
            a.machineTypes.push_back(std::move(m));
        }
        std::stable_sort(a.machineTypes.begin(), a.machineTypes.end(),
                         [](const GkeMachineType& x, const GkeMachineType& y) { return x.gpus < y.gpus; });
        if (c.find(a.accelerator))
            r.fail(path + "accelerator", "'" + a.accelerator + "' listed twice");
        c.m_offers.push_back(std::move(a));
    }
    return c;
}

fs::path GkeCatalog::defaultPath()
{
    if (const char* env = std::getenv("SHARDWISE_GKE_TABLE"); env && *env)
        return fs::path(env);
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        const fs::path installed
            = exe.parent_path().parent_path() / "share" / "shardwise" / "gke" / "accelerators.json";
        if (isFile(installed))
            return installed;
    }
#ifdef SHARDWISE_SOURCE_GKE_TABLE
    return fs::path(SHARDWISE_SOURCE_GKE_TABLE);
#else
    return fs::path("resources/gke/accelerators.json");
#endif
}

const GkeCatalog& GkeCatalog::builtin()
{
    static const GkeCatalog catalog = load(defaultPath());
    return catalog;
}

const GkeAcceleratorOffer* GkeCatalog::find(const std::string& accelerator) const
{
    for (const auto& o : m_offers)
        if (o.accelerator == accelerator)
            return &o;
    return nullptr;
}

std::vector<std::string> GkeCatalog::regions() const
{
    std::set<std::string> r;
    for (const auto& o : m_offers)
        for (const auto& region : o.regions())
            r.insert(region);
    return { r.begin(), r.end() };
}

} // namespace shardwise::cloud
