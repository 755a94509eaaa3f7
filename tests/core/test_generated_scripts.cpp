// Nothing from a model file or a user field runs as code (shardwise/spec/quote.hpp): hostile model ids
// go through every export (launch lines, sbatch, the FSDP2 script, torchtitan TOML, Accelerate YAML,
// ds_config) and the generated shell scripts are run with bash under stub commands that record their
// arguments. No PWNED file may appear, and the stubs must receive each hostile id as one literal
// argument. The TOML, YAML and Python read the value back byte for byte; the GKE Job's /bin/sh -c
// script and gcloud / kubectl lines run under stubs too; SSH command lines (node fields) likewise.
#include "estimate_input.hpp"

#include "shardwise/cloud/gke_preparation.hpp"
#include "shardwise/dispatch/shell_quote.hpp"
#include "shardwise/frameworks/configs.hpp"
#include "shardwise/spec/json.hpp"
#include "shardwise/spec/quote.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>

using namespace shardwise;
using namespace shardwise::frameworks;

namespace {

const std::vector<std::string>& hostileValues()
{
    static const std::vector<std::string> v {
        "x$(touch${IFS}PWNED)",
        "x`touch PWNED`",
        "x;touch PWNED;",
        "x\ntouch PWNED\n",
        "x'$(touch PWNED)'\"`touch PWNED`\"",
        "-x' && touch PWNED && echo '",
        "x\r\n# \"\\\ntouch PWNED #",
    };
    return v;
}

QByteArray bytes(const std::string& s)
{
    return QByteArray(s.data(), static_cast<qsizetype>(s.size()));
}

// A folder with stub commands and the log they write: one file per call, the arguments separated by
// NUL bytes. srun records and then runs what follows its options (so `srun ... bash -c '...'` runs
// the inner line); scontrol prints one host name.
class Stubs {
public:
    Stubs()
    {
        bin = dir.filePath(QStringLiteral("bin"));
        log = dir.filePath(QStringLiteral("log"));
        work = dir.filePath(QStringLiteral("work"));
        QDir().mkpath(bin);
        QDir().mkpath(log);
        QDir().mkpath(work);
        const QString record = QStringLiteral("#!/bin/bash\nf=$(mktemp \"$STUB_LOG/$(basename \"$0\").XXXXXX\")\n"
                                              "printf '%s\\0' \"$@\" > \"$f\"\n");
        for (const char* name : { "torchrun", "deepspeed", "accelerate", "shardwise-runner", "python3", "gcloud",
                                  "kubectl", "sbatch", "record" })
            write(QString::fromLatin1(name), record);
        write(QStringLiteral("srun"),
              record
                  + QStringLiteral(
                      "while [ $# -gt 0 ]; do case \"$1\" in bash | torchrun | shardwise-runner) exec \"$@\" ;; "
                      "esac; shift; done\n"));
        write(QStringLiteral("scontrol"), QStringLiteral("#!/bin/sh\necho node1\n"));
    }

    // Runs `program args` in the work folder with the stubs first on PATH; returns the exit code.
    int run(const QString& program, const QStringList& args, const QStringList& extraEnv = {},
            QString* output = nullptr)
    {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("PATH"), bin + QLatin1Char(':') + env.value(QStringLiteral("PATH")));
        env.insert(QStringLiteral("STUB_LOG"), log);
        for (const QString& kv : extraEnv)
            env.insert(kv.section(QLatin1Char('='), 0, 0), kv.section(QLatin1Char('='), 1));
        p.setProcessEnvironment(env);
        p.setWorkingDirectory(work);
        p.start(program, args);
        if (!p.waitForFinished(30000))
            return -100;
        if (output)
            *output = QString::fromUtf8(p.readAllStandardError() + p.readAllStandardOutput());
        return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    }

    // Every recorded call of `name`, each as its argument list.
    std::vector<std::vector<std::string>> calls(const QString& name) const
    {
        std::vector<std::vector<std::string>> out;
        for (const QString& f : QDir(log).entryList({ name + QStringLiteral(".*") }, QDir::Files)) {
            QFile file(QDir(log).filePath(f));
            if (!file.open(QIODevice::ReadOnly))
                continue;
            const QByteArray all = file.readAll();
            std::vector<std::string> args;
            qsizetype start = 0;
            for (qsizetype i = 0; i < all.size(); ++i) {
                if (all[i] == '\0') {
                    args.emplace_back(all.constData() + start, static_cast<std::size_t>(i - start));
                    start = i + 1;
                }
            }
            out.push_back(std::move(args));
        }
        return out;
    }

    void clearLog() const
    {
        QDir d(log);
        for (const QString& f : d.entryList(QDir::Files))
            d.remove(f);
    }

    bool pwned() const
    {
        return QFile::exists(QDir(work).filePath(QStringLiteral("PWNED")))
            || QFile::exists(QDir(bin).filePath(QStringLiteral("PWNED")));
    }

    QString scriptPath(const QString& name, const std::string& text) const
    {
        const QString path = QDir(work).filePath(name);
        QFile f(path);
        if (f.open(QIODevice::WriteOnly | QIODevice::Truncate))
            f.write(bytes(text));
        return path;
    }

    QTemporaryDir dir;
    QString bin, log, work;

private:
    void write(const QString& name, const QString& text)
    {
        QFile f(QDir(bin).filePath(name));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(text.toUtf8());
        f.close();
        f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    }
};

// The argument after `flag` in `args`, or a marker when there is none.
std::string after(const std::vector<std::string>& args, const std::string& flag)
{
    for (std::size_t i = 0; i + 1 < args.size(); ++i)
        if (args[i] == flag)
            return args[i + 1];
    return "<no " + flag + ">";
}

EstimateInput hostileInput(Framework f, const std::string& id)
{
    EstimateInput in = input("qwen2.5-7b", "h100-80gb", 8);
    in.cluster.nodes = 2;
    in.framework.framework = f;
    in.model.id = id; // as a model file could say, were it not checked when loaded
    return in;
}

Strategy strategyFor(Framework f)
{
    return f == Framework::Native || f == Framework::DeepSpeed ? Strategy::Zero3 : Strategy::Fsdp2Reshard;
}

QStringList launchModes(Framework f)
{
    QStringList modes { QStringLiteral("torchrun"), QStringLiteral("srun") };
    if (f == Framework::DeepSpeed)
        modes << QStringLiteral("deepspeed");
    if (f == Framework::Fsdp2)
        modes << QStringLiteral("accelerate");
    return modes;
}

} // namespace

class TestGeneratedScripts : public QObject {
    Q_OBJECT

private slots:
    void quotingHelpersRoundTripThroughTheirLanguages()
    {
        Stubs stubs;
        for (const std::string& h : hostileValues()) {
            stubs.clearLog();
            // sh -c with the quoted word: the stub receives exactly the value.
            QCOMPARE(stubs.run(QStringLiteral("sh"),
                               { QStringLiteral("-c"), QString::fromStdString("record " + shellQuote(h)) }),
                     0);
            const auto calls = stubs.calls(QStringLiteral("record"));
            QCOMPARE(calls.size(), std::size_t(1));
            QCOMPARE(calls[0], std::vector<std::string> { h });
            // YAML reads its double-quoted scalar back.
            QCOMPARE(YAML::Load("v: " + yamlQuote(h))["v"].as<std::string>(), h);
            // A comment stays one line.
            QVERIFY(commentText(h).find('\n') == std::string::npos);
            QVERIFY(commentText(h).find('\r') == std::string::npos);
        }
        QVERIFY(!stubs.pwned());
        // A plain word is written as it is.
        QCOMPARE(shellQuote("meta-llama/Llama-3.1-8B"), std::string("meta-llama/Llama-3.1-8B"));
    }

    void modelIdsHaveOneCharacterSet()
    {
        for (const char* ok : { "qwen2.5-0.5b", "meta-llama/Llama-3.1-8B", "tiny", "Qwen2.5-7B-Instruct", "a+b_c" })
            QVERIFY2(modelIdProblem(ok).empty(), ok);
        for (const std::string& h : hostileValues()) {
            const std::string why = modelIdProblem(h);
            QVERIFY2(!why.empty(), h.c_str());
            QVERIFY2(why.find('\n') == std::string::npos, why.c_str()); // the message names it on one line
        }
        QVERIFY(!modelIdProblem("").empty());
        QVERIFY(!modelIdProblem("../etc/passwd").empty());
        QVERIFY(!modelIdProblem("/abs").empty());
        QVERIFY(!modelIdProblem(std::string(kMaxModelIdLength + 1, 'a')).empty());
        QVERIFY(modelIdProblem(std::string(kMaxModelIdLength, 'a')).empty());
        QVERIFY_THROWS_EXCEPTION(SpecError, checkModelId("a b", "id"));
    }

    void launchScriptsRunNothingFromTheModelId()
    {
        Stubs stubs;
        for (const Framework f : { Framework::Native, Framework::DeepSpeed, Framework::Fsdp2, Framework::Torchtitan }) {
            for (const std::string& h : hostileValues()) {
                const EstimateInput in = hostileInput(f, h);
                const Strategy s = strategyFor(f);
                QVERIFY(exportSupports(ConfigKind::Launch, in, s));
                const QString script = stubs.scriptPath(QStringLiteral("launch.sh"),
                                                        exportConfig(ConfigKind::Launch, in, s, planIdentity(in, s)));
                for (const QString& mode : launchModes(f)) {
                    stubs.clearLog();
                    QString output;
                    const int rc
                        = stubs.run(QStringLiteral("bash"), { script, mode },
                                    { QStringLiteral("SLURM_NNODES=2"), QStringLiteral("SLURM_JOB_NODELIST=node[1-2]"),
                                      QStringLiteral("SLURM_JOB_ID=7") },
                                    &output);
                    QVERIFY2(rc == 0, qPrintable(mode + QStringLiteral(": ") + output));
                    QVERIFY2(!stubs.pwned(), qPrintable(mode + QStringLiteral(" ran the model id")));
                    const QString launcher = mode == QStringLiteral("srun") ? QStringLiteral("torchrun") : mode;
                    const auto calls = stubs.calls(launcher);
                    QVERIFY2(calls.size() == 1, qPrintable(launcher + QStringLiteral(" was not called once")));
                    if (f == Framework::Native)
                        QCOMPARE(after(calls[0], "--model"), h);
                }
            }
        }
    }

    // The script's arguments on every DeepSpeed launch line parse with DeepSpeed's own add_config_arguments
    // (deepspeed/__init__.py lines 248-253 at v0.16.0: --deepspeed a flag, --deepspeed_config FILE) and
    // the --local_rank the deepspeed launcher adds; `--deepspeed ds_config.json` would leave a stray argument.
    void deepSpeedLaunchArgumentsParseAsDeepSpeedsOwn()
    {
        Stubs stubs;
        const EstimateInput in = hostileInput(Framework::DeepSpeed, "qwen2.5-7b");
        const QString script = stubs.scriptPath(
            QStringLiteral("launch.sh"),
            exportConfig(ConfigKind::Launch, in, Strategy::Zero3, planIdentity(in, Strategy::Zero3)));
        for (const QString& mode : launchModes(Framework::DeepSpeed)) {
            stubs.clearLog();
            QString output;
            QCOMPARE(stubs.run(QStringLiteral("bash"), { script, mode },
                               { QStringLiteral("SLURM_NNODES=2"), QStringLiteral("SLURM_JOB_NODELIST=node[1-2]"),
                                 QStringLiteral("SLURM_JOB_ID=7") },
                               &output),
                     0);
            const QString launcher = mode == QStringLiteral("srun") ? QStringLiteral("torchrun") : mode;
            const auto calls = stubs.calls(launcher);
            QCOMPARE(calls.size(), std::size_t(1));
            const auto& args = calls[0];
            const auto train = std::find(args.begin(), args.end(), std::string("train.py"));
            QVERIFY2(train != args.end(), qPrintable(mode));
            QStringList scriptArgs;
            for (auto it = train + 1; it != args.end(); ++it)
                scriptArgs << QString::fromStdString(*it);
            if (mode == QStringLiteral("deepspeed"))
                scriptArgs << QStringLiteral("--local_rank=0");
            QProcess py;
            py.start(QStringLiteral("/usr/bin/python3"),
                     QStringList { QStringLiteral("-c"),
                                   QStringLiteral("import argparse, sys\n"
                                                  "p = argparse.ArgumentParser()\n"
                                                  "p.add_argument('--local_rank', type=int, default=-1)\n"
                                                  "g = p.add_argument_group('DeepSpeed')\n"
                                                  "g.add_argument('--deepspeed', default=False, action='store_true')\n"
                                                  "g.add_argument('--deepspeed_config', default=None, type=str)\n"
                                                  "a = p.parse_args(sys.argv[1:])\n"
                                                  "assert a.deepspeed, 'no --deepspeed'\n"
                                                  "print(a.deepspeed_config)\n") }
                         + scriptArgs);
            QVERIFY(py.waitForFinished(30000));
            QVERIFY2(py.exitCode() == 0,
                     qPrintable(mode + QStringLiteral(": ") + QString::fromUtf8(py.readAllStandardError())));
            QCOMPARE(py.readAllStandardOutput().trimmed(), QByteArray("ds_config.json"));
        }
    }

    void sbatchScriptsRunNothingFromTheModelId()
    {
        Stubs stubs;
        for (const Framework f : { Framework::Native, Framework::DeepSpeed, Framework::Fsdp2, Framework::Torchtitan }) {
            for (const std::string& h : hostileValues()) {
                const EstimateInput in = hostileInput(f, h);
                const Strategy s = strategyFor(f);
                const std::string text = exportConfig(ConfigKind::Sbatch, in, s, planIdentity(in, s));
                // sbatch reads the #SBATCH lines itself: each stays one line with no quote or shell character.
                for (const QString& line : QString::fromStdString(text).split(QLatin1Char('\n')))
                    if (line.startsWith(QStringLiteral("#SBATCH")))
                        QVERIFY2(!line.contains(QLatin1Char('$')) && !line.contains(QLatin1Char('`'))
                                     && !line.contains(QLatin1Char(';')) && !line.contains(QLatin1Char('\'')),
                                 qPrintable(line));
                const QString script = stubs.scriptPath(QStringLiteral("shardwise.sbatch"), text);
                stubs.clearLog();
                QString output;
                const int rc
                    = stubs.run(QStringLiteral("bash"), { script },
                                { QStringLiteral("SLURM_NNODES=2"), QStringLiteral("SLURM_JOB_NODELIST=node[1-2]"),
                                  QStringLiteral("SLURM_JOB_ID=7") },
                                &output);
                QVERIFY2(rc == 0, qPrintable(output));
                QVERIFY(!stubs.pwned());
                const auto runners = stubs.calls(f == Framework::Native ? QStringLiteral("shardwise-runner")
                                                                        : QStringLiteral("torchrun"));
                QCOMPARE(runners.size(), std::size_t(1));
                if (f == Framework::Native)
                    QCOMPARE(after(runners[0], "--model"), h);
            }
        }
    }

    void pythonTomlAndYamlReadTheValuesBack()
    {
        Stubs stubs;
        for (const std::string& h : hostileValues()) {
            // The FSDP2 script: Python's own parser reads MODEL_PATH's default back byte for byte.
            {
                const EstimateInput in = hostileInput(Framework::Fsdp2, h);
                const QString script
                    = stubs.scriptPath(QStringLiteral("train_fsdp2.py"),
                                       exportConfig(ConfigKind::Fsdp2Python, in, Strategy::Fsdp2Reshard,
                                                    planIdentity(in, Strategy::Fsdp2Reshard)));
                QProcess py;
                py.start(
                    QStringLiteral("/usr/bin/python3"),
                    { QStringLiteral("-c"),
                      QStringLiteral("import ast, sys\n"
                                     "tree = ast.parse(open(sys.argv[1], encoding='utf-8').read())\n"
                                     "for node in ast.walk(tree):\n"
                                     "    if isinstance(node, ast.Assign) and getattr(node.targets[0], 'id', '') == "
                                     "'MODEL_PATH':\n"
                                     "        sys.stdout.buffer.write(node.value.args[1].value.encode())\n"),
                      script });
                QVERIFY(py.waitForFinished(30000));
                QVERIFY2(py.exitCode() == 0, py.readAllStandardError().constData());
                QCOMPARE(py.readAllStandardOutput(), bytes(h));
            }
            // torchtitan TOML: tomllib reads the description back; the project's reader takes the file.
            {
                const EstimateInput in = hostileInput(Framework::Torchtitan, h);
                const PlanIdentity id = planIdentity(in, Strategy::Fsdp2Reshard);
                const std::string toml = exportConfig(ConfigKind::Torchtitan, in, Strategy::Fsdp2Reshard, id);
                const QString file = stubs.scriptPath(QStringLiteral("shardwise.toml"), toml);
                QProcess py;
                py.start(QStringLiteral("/usr/bin/python3"),
                         { QStringLiteral("-c"),
                           QStringLiteral("import sys, tomllib\n"
                                          "d = tomllib.load(open(sys.argv[1], 'rb'))\n"
                                          "sys.stdout.buffer.write(d['job']['description'].encode())\n"),
                           file });
                QVERIFY(py.waitForFinished(30000));
                QVERIFY2(py.exitCode() == 0, py.readAllStandardError().constData());
                QCOMPARE(py.readAllStandardOutput(), bytes(id.description));
                QVERIFY(id.description.find(h) != std::string::npos);
                const ImportedSettings back = importConfig(toml, "shardwise.toml");
                QVERIFY(back.strategy == Strategy::Fsdp2Reshard);
            }
            // Accelerate YAML and ds_config: the header comment stays comments; the readers take them.
            for (const ConfigKind kind : { ConfigKind::Accelerate, ConfigKind::DsConfig }) {
                const EstimateInput in = hostileInput(Framework::DeepSpeed, h);
                const std::string text = exportConfig(kind, in, Strategy::Zero3, planIdentity(in, Strategy::Zero3));
                for (const QString& line : QString::fromStdString(text).split(QLatin1Char('\n')))
                    if (line.contains(QStringLiteral("PWNED")))
                        QVERIFY2(line.trimmed().startsWith(QLatin1Char('#')) || kind == ConfigKind::DsConfig,
                                 qPrintable(line));
                const ImportedSettings back
                    = importConfig(text, kind == ConfigKind::Accelerate ? "accelerate.yaml" : "ds_config.json");
                QVERIFY(back.strategy == Strategy::Zero3);
            }
        }
        QVERIFY(!stubs.pwned());
    }

    void gkeRefusesAHostileIdAndQuotesTheRest()
    {
        Stubs stubs;
        cloud::GkeRequest r;
        r.gpu = resolveGpu("l4");
        r.run.model = resolveModel("llama-3.1-8b");
        r.run.strategy = Strategy::Fsdp2Reshard;
        r.cluster.gpusPerNode = 2;
        r.cluster.nodes = 1;
        r.region = "us-central1";
        for (const std::string& h : hostileValues()) {
            cloud::GkeRequest bad = r;
            bad.run.model.id = h;
            try {
                cloud::prepareGke(bad);
                QFAIL("a hostile model id was accepted");
            } catch (const cloud::CloudError& e) {
                QCOMPARE(e.field(), std::string("model"));
            }
        }
        r.run.model.id = "meta-llama/Llama-3.1-8B";
        for (const std::string& h : hostileValues()) {
            cloud::GkeRequest q = r;
            q.image = h;
            q.clusterName = "c" + h;
            const cloud::GkePreparation p = cloud::prepareGke(q);
            const std::vector<YAML::Node> docs = YAML::LoadAll(p.manifest);
            QCOMPARE(docs.size(), std::size_t(2));
            const YAML::Node container = docs[1]["spec"]["template"]["spec"]["containers"][0];
            QCOMPARE(container["image"].as<std::string>(), h);
            // The Job's /bin/sh -c script, run as the pod would: one runner per GPU, the id one word.
            stubs.clearLog();
            QString output;
            QCOMPARE(stubs.run(QStringLiteral("/bin/sh"),
                               { QStringLiteral("-c"), QString::fromStdString(container["args"][0].as<std::string>()) },
                               { QStringLiteral("JOB_COMPLETION_INDEX=0"), QStringLiteral("GPUS_PER_NODE=2") },
                               &output),
                     0);
            const auto runners = stubs.calls(QStringLiteral("shardwise-runner"));
            QCOMPARE(runners.size(), std::size_t(2));
            for (const auto& call : runners)
                QCOMPARE(after(call, "--model"), std::string("meta-llama/Llama-3.1-8B"));
            // gcloud and kubectl lines run under stubs with nothing executed from the names.
            for (const auto* list : { &p.gcloud, &p.kubectl })
                for (const cloud::GkeCommand& c : *list)
                    QCOMPARE(
                        stubs.run(QStringLiteral("bash"), { QStringLiteral("-c"), QString::fromStdString(c.command) }),
                        0);
        }
        QVERIFY(!stubs.pwned());
    }

    void sshCommandLinesKeepNodeFieldsLiteral()
    {
        // What remote_launch and node preparation send to a node's shell: env assignments, a runner
        // path and arguments a node's settings name, each one word after one round of parsing.
        Stubs stubs;
        for (const std::string& h : hostileValues()) {
            stubs.clearLog();
            const std::vector<std::string> argv { "env",
                                                  "NCCL_SOCKET_IFNAME=" + h,
                                                  QDir(stubs.bin).filePath(QStringLiteral("record")).toStdString(),
                                                  "--model",
                                                  h,
                                                  h };
            QCOMPARE(stubs.run(QStringLiteral("sh"),
                               { QStringLiteral("-c"), QString::fromStdString(dispatch::shellCommand(argv)) }),
                     0);
            const auto calls = stubs.calls(QStringLiteral("record"));
            QCOMPARE(calls.size(), std::size_t(1));
            QCOMPARE(calls[0], (std::vector<std::string> { "--model", h, h }));
        }
        QVERIFY(!stubs.pwned());
    }
};

QTEST_GUILESS_MAIN(TestGeneratedScripts)
#include "test_generated_scripts.moc"
