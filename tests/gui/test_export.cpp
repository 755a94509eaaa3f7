// The exporter writes valid PNG, SVG and PDF files with the caption, and tables as CSV and Markdown.
#include "gui_test_main.hpp"

#include "charts/chart_panel.hpp"
#include "charts/chart_style.hpp"
#include "charts/comparison_charts.hpp"
#include "charts/memory_breakdown_chart.hpp"
#include "export/chart_exporter.hpp"
#include "export/comparison_caption.hpp"
#include "export/plan_report.hpp"
#include "export/run_csv.hpp"
#include "export/table_exporter.hpp"
#include "models/run_table_model.hpp"

#include <QFile>
#include <QImage>
#include <QRegularExpression>
#include <QStandardItemModel>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTimeZone>

using namespace shardwise;
using namespace shardwise::gui;

namespace {

QList<RunRecord> twoRuns()
{
    RunRecord ok;
    ok.id = 7;
    ok.model = QStringLiteral("Qwen2.5 3B");
    ok.hardware = QStringLiteral("4 × NVIDIA L4 (PCIe)");
    ok.node = QStringLiteral("gpu-box");
    ok.strategy = Strategy::Zero3;
    ok.tokensPerS = 2100;
    ok.peakAllocatedGiB = 17.5;
    ok.peakReservedGiB = 19.0;
    ok.capacityGiB = 22.5;
    ok.ncclShare = 0.31;
    ok.predictedTokensPerS = 2400;
    ok.warmupSteps = 5;
    ok.timedSteps = 15;
    ok.versions = QStringLiteral("LibTorch 2.11.0, CUDA 13.0, NCCL 2.27.3");
    RunRecord oom = ok;
    oom.id = 8;
    oom.strategy = Strategy::Zero2;
    oom.outcome = RunOutcome::OutOfMemory;
    oom.tokensPerS = 0;
    oom.peakAllocatedGiB = 21.9;
    oom.peakReservedGiB = 22.4;
    return { ok, oom };
}

// A run measured on this machine's CPU: stored as asked (bf16), computed in fp32.
RunRecord cpuRun()
{
    RunRecord cpu;
    cpu.id = 9;
    cpu.model = QStringLiteral("tiny");
    cpu.hardware = QStringLiteral("2 × cpu");
    cpu.node = QStringLiteral("local");
    cpu.strategy = Strategy::Fsdp2Reshard;
    cpu.onCpu = true;
    cpu.precision = QStringLiteral("bf16");
    cpu.started = QDateTime(QDate(2026, 12, 4), QTime(18, 47, 9), QTimeZone(3600)); // 17:47:09 UTC
    cpu.tokensPerS = 1234.5;
    cpu.medianStepS = 0.25;
    cpu.peakAllocatedGiB = 0.5;
    cpu.world = 2;
    cpu.microBatch = 2;
    cpu.seqLen = 64;
    cpu.warmupSteps = 1;
    cpu.timedSteps = 3;
    return cpu;
}

// Rows of a CSV without comment lines, split on commas (the test data has no quoted commas).
QList<QStringList> csvRows(const QString& text)
{
    QList<QStringList> rows;
    for (const QString& line : text.split(QStringLiteral("\r\n"), Qt::SkipEmptyParts))
        if (!line.startsWith(QLatin1Char('#')))
            rows << line.split(QLatin1Char(','));
    return rows;
}

// The text of a PDF as Qt's PDF engine writes it: content streams (deflated) show glyph ids one
// "<gid> Tj" at a time, and each font's ToUnicode map ("<first> <last> [<u> <u> ...]") says which
// character each id is. Every glyph run is decoded with every font's map; the right map gives the text.
QString pdfText(const QByteArray& pdf)
{
    const QString latin = QString::fromLatin1(pdf);
    // A glyph may stand for several characters (<00660066>) or for a ligature character (<FB04>, "ﬄ").
    QList<QHash<int, QString>> maps;
    static const QRegularExpression range(
        QStringLiteral("<([0-9A-Fa-f]{4})> <([0-9A-Fa-f]{4})> \\[([<>0-9A-Fa-f\\s]+)\\]"));
    static const QRegularExpression hex(QStringLiteral("<([0-9A-Fa-f]+)>"));
    for (auto m = range.globalMatch(latin); m.hasNext();) {
        const auto match = m.next();
        QHash<int, QString> map;
        int gid = match.captured(1).toInt(nullptr, 16);
        for (auto u = hex.globalMatch(match.captured(3)); u.hasNext(); ++gid) {
            const QString units = u.next().captured(1);
            QString text;
            for (qsizetype at = 0; at + 4 <= units.size(); at += 4)
                text += QChar(units.mid(at, 4).toUShort(nullptr, 16));
            map.insert(gid, text);
        }
        maps << map;
    }
    QList<int> glyphs;
    static const QRegularExpression shown(QStringLiteral("<([0-9A-Fa-f]+)> ?Tj"));
    for (qsizetype at = pdf.indexOf("stream\n"); at >= 0; at = pdf.indexOf("stream\n", at + 1)) {
        const qsizetype begin = at + 7;
        const qsizetype end = pdf.indexOf("endstream", begin);
        if (end < 0)
            break;
        QByteArray data = pdf.mid(begin, end - begin);
        // qUncompress wants the expected size in front: a generous bound.
        const QByteArray inflated = qUncompress(QByteArray::fromHex("00400000") + data);
        for (auto m = shown.globalMatch(QString::fromLatin1(inflated.isEmpty() ? data : inflated)); m.hasNext();)
            glyphs << m.next().captured(1).toInt(nullptr, 16);
        at = end + 9; // past "endstream", which ends in "stream" too
    }
    QString text;
    for (const QHash<int, QString>& map : maps) {
        for (int g : glyphs)
            text += map.value(g, QStringLiteral("?"));
        text += QLatin1Char('\n');
    }
    // Ligatures stand for their letters again ("ﬄ" in "offload" is "ffl").
    return text.normalized(QString::NormalizationForm_KC);
}

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestExport : public QObject {
    Q_OBJECT

private slots:
    void chartExportWritesAValidFile_data()
    {
        QTest::addColumn<QString>("suffix");
        QTest::newRow("png") << QStringLiteral("png");
        QTest::newRow("svg") << QStringLiteral("svg");
        QTest::newRow("pdf") << QStringLiteral("pdf");
    }
    void chartExportWritesAValidFile()
    {
        QFETCH(QString, suffix);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        ChartPanel panel;
        panel.setRuns(twoRuns());
        const ExportCaption caption = comparisonCaption(panel.runs());
        const QString path = dir.filePath(QStringLiteral("chart.") + suffix);
        const ExportResult result = ChartExporter::exportBarCharts(panel.specs(), 900, path, caption);
        QVERIFY2(result.ok, qPrintable(result.error));
        const QByteArray bytes = readAll(path);
        QVERIFY(bytes.size() > 1000);
        if (suffix == QLatin1String("png")) {
            QImage image;
            QVERIFY(image.load(path, "PNG"));
            // Twice the pixels of the charts, 900 wide, plus the caption's height under them.
            QCOMPARE(image.width(), 1800);
            QVERIFY(image.height() > 1000);
        } else if (suffix == QLatin1String("svg")) {
            QSvgRenderer renderer(path);
            QVERIFY(renderer.isValid());
            QVERIFY(bytes.contains("<title>"));
            QVERIFY(bytes.contains(caption.title.toHtmlEscaped().toUtf8()));
            QVERIFY(bytes.contains("<desc>"));
        } else {
            QVERIFY(bytes.startsWith("%PDF-"));
            QVERIFY(bytes.trimmed().endsWith("%%EOF"));
            QVERIFY(bytes.contains("/Type /Page"));
        }
    }

    void captionStatesWhatWasMeasured()
    {
        const ExportCaption caption = comparisonCaption(twoRuns());
        QVERIFY(caption.title.contains(QStringLiteral("Qwen2.5 3B")));
        QVERIFY(caption.title.contains(QStringLiteral("NVIDIA L4")));
        QVERIFY(caption.description.contains(QStringLiteral("LibTorch 2.11.0")));
        QVERIFY(caption.description.contains(QStringLiteral("5 warm-up + 15 timed steps")));
        QVERIFY(caption.description.contains(QStringLiteral("#8 out of memory")));
    }

    void unknownFormatIsRefusedWithItsName()
    {
        QTemporaryDir dir;
        ChartPanel panel;
        panel.resize(400, 300);
        const ExportResult chart = ChartExporter::exportWidget(panel, dir.filePath(QStringLiteral("chart.gif")), {});
        QVERIFY(!chart.ok);
        QVERIFY(chart.error.contains(QStringLiteral("gif")));
        QVERIFY(chart.error.contains(QStringLiteral("png")));
        RunTableModel model;
        const ExportResult table = TableExporter::exportModel(model, dir.filePath(QStringLiteral("table.xlsx")), {});
        QVERIFY(!table.ok);
        QVERIFY(table.error.contains(QStringLiteral("xlsx")));
    }

    void csvQuotesFieldsAndCarriesTheCaption()
    {
        QStandardItemModel model(2, 2);
        model.setHorizontalHeaderLabels({ QStringLiteral("name"), QStringLiteral("note") });
        model.setItem(0, 0, new QStandardItem(QStringLiteral("zero3")));
        model.setItem(0, 1, new QStandardItem(QStringLiteral("said \"hi\", twice")));
        model.setItem(1, 0, new QStandardItem(QStringLiteral("fsdp2")));
        model.setItem(1, 1, new QStandardItem(QStringLiteral("plain")));
        const QString csv
            = TableExporter::toCsv(model, { QStringLiteral("Title"), QStringLiteral("line one\nline two") });
        QCOMPARE(csv,
                 QStringLiteral("# Title\r\n# line one\r\n# line two\r\nname,note\r\nzero3,\"said \"\"hi\"\", "
                                "twice\"\r\nfsdp2,plain\r\n"));
    }

    void markdownEscapesPipesAndEndsWithTheCaption()
    {
        QStandardItemModel model(1, 2);
        model.setHorizontalHeaderLabels({ QStringLiteral("a"), QStringLiteral("b") });
        model.setItem(0, 0, new QStandardItem(QStringLiteral("x|y")));
        model.setItem(0, 1, new QStandardItem(QStringLiteral("z")));
        const QString md = TableExporter::toMarkdown(model, { QStringLiteral("T"), QStringLiteral("D") });
        QCOMPARE(md, QStringLiteral("| a | b |\n|---|---|\n| x\\|y | z |\n\n*T* — D\n"));
    }

    void runTableExportsEveryRunWithItsOutcome()
    {
        QTemporaryDir dir;
        RunTableModel model;
        model.setRuns(twoRuns());
        const QString path = dir.filePath(QStringLiteral("runs.csv"));
        const ExportResult result = TableExporter::exportModel(model, path, comparisonCaption(model.runs()));
        QVERIFY2(result.ok, qPrintable(result.error));
        const QString text = QString::fromUtf8(readAll(path));
        const QStringList rows = text.split(QStringLiteral("\r\n"), Qt::SkipEmptyParts);
        int dataRows = 0;
        for (const QString& row : rows)
            if (row.startsWith(QLatin1Char('#')) && row.size() > 1 && row.at(1).isDigit())
                ++dataRows;
        QCOMPARE(dataRows, 2);
        QVERIFY(text.contains(QStringLiteral("out of memory")));
    }

    void captionStatesEachRunsOwnConfiguration()
    {
        QList<RunRecord> runs = twoRuns();
        runs[0].precision = QStringLiteral("bf16");
        runs[0].seqLen = 2048;
        runs.append(cpuRun());
        const QString text = comparisonCaption(runs).description;
        // Each run on a line of its own, with the precision it computed in: fp32 on the CPU.
        QVERIFY2(text.contains(QStringLiteral("#7 ZeRO-3, native: precision bf16, micro-batch 1, sequence 2048 tokens, "
                                              "5 warm-up + 15 timed steps")),
                 qPrintable(text));
        QVERIFY2(
            text.contains(QStringLiteral("#9 FSDP2 reshard, native: precision fp32 (CPU), micro-batch 2, sequence 64 "
                                         "tokens, 1 warm-up + 3 timed steps")),
            qPrintable(text));
        // Never a merged list that leaves the reader to guess which run had which.
        QVERIFY2(!text.contains(QStringLiteral("bf16; ")) && !text.contains(QStringLiteral("; bf16")),
                 qPrintable(text));
    }

    void runCsvHoldsNumbersInSiUnitsInNamedColumns()
    {
        QLocale::setDefault(QLocale(QLocale::German)); // a comma decimal point must not reach the file
        QTemporaryDir dir;
        QList<RunRecord> runs = twoRuns();
        runs[0].started = QDateTime(QDate(2026, 12, 4), QTime(17, 47, 9), QTimeZone::utc());
        runs[0].tokensPerS = 12345.5;
        runs[0].medianStepS = 1.375;
        runs.append(cpuRun());
        PredictionSet predictions;
        RunPrediction p;
        p.gpu = QStringLiteral("l4");
        p.presets = { 2400.25, 0.143, 16.0, -0.086, true, false };
        p.calibrated = { 2150, 0.0238, 17.25, -0.0143, true, false };
        predictions.runs.insert(7, p);
        const QString path = dir.filePath(QStringLiteral("runs.csv"));
        const ExportResult result = exportRunTable(runs, predictions, path);
        QLocale::setDefault(QLocale::c());
        QVERIFY2(result.ok, qPrintable(result.error));
        const QString text = QString::fromUtf8(readAll(path));
        // Plain CSV: the header row first, no comment line anywhere (pandas' and Excel's defaults read it).
        QVERIFY2(text.startsWith(QStringLiteral("run_id,started_at,")), qPrintable(text.left(80)));
        QVERIFY2(!text.contains(QStringLiteral("\r\n#")), qPrintable(text));
        // The caption in its side file.
        const QString caption = QString::fromUtf8(readAll(dir.filePath(QStringLiteral("runs.caption.txt"))));
        QVERIFY2(caption.contains(QStringLiteral("Qwen2.5 3B")) && caption.contains(QStringLiteral("#7")),
                 qPrintable(caption));
        const QList<QStringList> rows = csvRows(text);
        QCOMPARE(rows.size(), 4);
        const QStringList header = rows.front();
        QCOMPARE(header, runCsvColumns());
        auto value = [&](int row, const char* column) {
            const qsizetype c = header.indexOf(QLatin1String(column));
            return c < 0 ? QStringLiteral("<no column %1>").arg(QLatin1String(column)) : rows.at(row).at(c);
        };
        constexpr qint64 kGiB = qint64(1) << 30;
        QCOMPARE(value(1, "run_id"), QStringLiteral("7"));
        QCOMPARE(value(1, "started_at"), QStringLiteral("2026-12-04T17:47:09Z"));
        QCOMPARE(value(1, "tokens_per_second"), QStringLiteral("12345.5"));
        QCOMPARE(value(1, "step_seconds"), QStringLiteral("1.375"));
        QCOMPARE(value(1, "peak_allocated_bytes"), QString::number(qint64(17.5 * double(kGiB))));
        QCOMPARE(value(1, "peak_reserved_bytes"), QString::number(19 * kGiB));
        QCOMPARE(value(1, "gpu_memory_bytes"), QString::number(qint64(22.5 * double(kGiB))));
        QCOMPARE(value(1, "nccl_share"), QStringLiteral("0.31"));
        QCOMPARE(value(1, "strategy"), QStringLiteral("zero3"));
        QCOMPARE(value(1, "outcome"), QStringLiteral("completed"));
        QCOMPARE(value(1, "presets_tokens_per_second"), QStringLiteral("2400.25"));
        QCOMPARE(value(1, "presets_tokens_error"), QStringLiteral("0.143"));
        QCOMPARE(value(1, "calibrated_peak_allocated_bytes"), QString::number(qint64(17.25 * double(kGiB))));
        QCOMPARE(value(1, "calibrated_fits"), QStringLiteral("true"));
        // The out-of-memory run: no throughput, its peak, no prediction.
        QCOMPARE(value(2, "outcome"), QStringLiteral("out_of_memory"));
        QCOMPARE(value(2, "tokens_per_second"), QString());
        QCOMPARE(value(2, "peak_allocated_bytes"), QString::number(std::llround(21.9 * double(kGiB))));
        QCOMPARE(value(2, "presets_tokens_per_second"), QString());
        // The CPU run: its own precision (fp32), its start time in UTC with the zone.
        QCOMPARE(value(3, "device"), QStringLiteral("cpu"));
        QCOMPARE(value(3, "precision"), QStringLiteral("fp32"));
        QCOMPARE(value(3, "started_at"), QStringLiteral("2026-12-04T17:47:09Z"));
        QCOMPARE(value(3, "tokens_per_second"), QStringLiteral("1234.5"));
        QCOMPARE(value(3, "gpu_memory_bytes"), QString());
        // Every filled numeric cell parses as a C-locale number: no units, no thousands separators.
        static const QRegularExpression number(QStringLiteral("^-?[0-9]+(\\.[0-9]+)?(e[-+]?[0-9]+)?$"));
        for (const char* column : { "tokens_per_second", "step_seconds", "peak_allocated_bytes", "peak_reserved_bytes",
                                    "nccl_share", "presets_tokens_per_second", "presets_peak_error" })
            for (int row = 1; row < rows.size(); ++row)
                QVERIFY2(
                    value(row, column).isEmpty() || number.match(value(row, column)).hasMatch(),
                    qPrintable(
                        QStringLiteral("%1 row %2: %3").arg(QLatin1String(column)).arg(row).arg(value(row, column))));
    }

    void captionSideFileSitsBesideTheCsv()
    {
        QCOMPARE(captionSidecarPath(QStringLiteral("/tmp/a/runs.CSV")), QStringLiteral("/tmp/a/runs.caption.txt"));
        QCOMPARE(captionSidecarPath(QStringLiteral("out.csv")), QStringLiteral("out.caption.txt"));
    }

    void runMarkdownIsNarrowTablesWithEveryColumn()
    {
        QList<RunRecord> runs = twoRuns();
        runs[0].precision = QStringLiteral("bf16-fp32-master");
        runs[0].seqLen = 4096;
        runs[0].microBatch = 2;
        QHash<qint64, RunPrediction> predictions;
        predictions.insert(7,
                           RunPrediction { QStringLiteral("l4"),
                                           { 2400, 0.14, 16, -0.08, true, false },
                                           { 2150, 0.02, 17.2, -0.01, true, false } });
        const QString md = runsMarkdown(runs, predictions, { QStringLiteral("T"), QStringLiteral("D") });
        RunTableModel model;
        model.setRuns(runs);
        QSet<QString> headers;
        int tables = 0;
        for (const QString& line : md.split(QLatin1Char('\n'))) {
            if (!line.startsWith(QLatin1String("| ")))
                continue;
            const QStringList cells = line.mid(2, line.size() - 4).split(QStringLiteral(" | "));
            // A report's page holds seven columns; the wide table was 24.
            QVERIFY2(cells.size() <= 7, qPrintable(line));
            if (cells.front() == QLatin1String("Run")) {
                ++tables;
                for (const QString& h : cells)
                    headers.insert(h);
            }
        }
        QCOMPARE(tables, 5);
        for (int c = 0; c < model.columnCount(); ++c)
            QVERIFY2(headers.contains(model.headerData(c, Qt::Horizontal).toString()),
                     qPrintable(model.headerData(c, Qt::Horizontal).toString()));
        // The setup row of run 7: strategy, backend, precision, world, sequence, micro-batch.
        const QString world = model.index(0, RunTableModel::WorldColumn).data().toString();
        QVERIFY2(md.contains(QStringLiteral("| #7 | ZeRO-3 | native | bf16-fp32-master | %1 | %2 | 2 |")
                                 .arg(world, QLocale().toString(4096))),
                 qPrintable(md));
        QVERIFY2(md.endsWith(QStringLiteral("*T* — D\n")), qPrintable(md));
    }

    void chartExportsKeepEveryLegendEntry_data()
    {
        QTest::addColumn<QString>("suffix");
        QTest::newRow("svg") << QStringLiteral("svg");
        QTest::newRow("pdf") << QStringLiteral("pdf");
    }
    void chartExportsKeepEveryLegendEntry()
    {
        QFETCH(QString, suffix);
        QTemporaryDir dir;
        QList<RunRecord> runs = twoRuns();
        QHash<qint64, RunPrediction> predictions;
        predictions.insert(7,
                           RunPrediction { QStringLiteral("l4"),
                                           { 2400, 0.14, 16, -0.08, true, false },
                                           { 2150, 0.02, 17.2, -0.01, true, false } });
        const QString path = dir.filePath(QStringLiteral("predicted.") + suffix);
        const ExportResult result = ChartExporter::exportBarCharts({ calibrationChart(runs, predictions) }, 960, path,
                                                                   { QStringLiteral("T"), {} });
        QVERIFY2(result.ok, qPrintable(result.error));
        const QByteArray bytes = readAll(path);
        // SVG keeps text as text; Qt's PDF writes glyph ids, read back through the fonts' ToUnicode maps.
        const QString text = suffix == QLatin1String("svg") ? QString::fromUtf8(bytes) : pdfText(bytes);
        for (const char* name : { "measured", "presets", "calibrated", "ZeRO-3", "ZeRO-2" })
            QVERIFY2(text.contains(QLatin1String(name)), name);
        // The swatches: the strategies' colours on their bars and in the legend.
        if (suffix == QLatin1String("svg"))
            for (const Strategy strategy : { Strategy::Zero3, Strategy::Zero2 })
                QVERIFY2(bytes.count(strategyColor(strategy).name().toUtf8()) >= 2,
                         qPrintable(strategyColor(strategy).name()));
    }

    // 30 runs on two GPUs and a CPU: every export has every run's label whole, in the order and size
    // the page draws them; the PDF spreads the charts over A4 pages instead of shrinking them.
    void thirtyRunExportsAreReadable_data()
    {
        QTest::addColumn<QString>("suffix");
        QTest::newRow("png") << QStringLiteral("png");
        QTest::newRow("svg") << QStringLiteral("svg");
        QTest::newRow("pdf") << QStringLiteral("pdf");
    }
    void thirtyRunExportsAreReadable()
    {
        QFETCH(QString, suffix);
        QList<RunRecord> runs;
        for (int i = 0; i < 30; ++i) {
            RunRecord r = twoRuns().at(i % 2);
            r.id = 200 + i;
            r.strategy = static_cast<Strategy>(i % 9);
            r.precision = QStringLiteral("bf16");
            r.seqLen = 2048;
            if (i >= 20) {
                r.hardware = QStringLiteral("8 × NVIDIA H200 (NVLink)");
                r.capacityGiB = 139.8;
            }
            runs << r;
        }
        runs << cpuRun();
        ChartPanel panel;
        panel.setRuns(runs);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("thirty.") + suffix);
        const ExportResult result = ChartExporter::exportBarCharts(panel.specs(), ChartExporter::barChartExportWidth(),
                                                                   path, comparisonCaption(runs));
        QVERIFY2(result.ok, qPrintable(result.error));
        const QByteArray bytes = readAll(path);
        if (suffix == QLatin1String("png")) {
            QImage image;
            QVERIFY(image.load(path, "PNG"));
            // Each of the four charts has a row per run: far taller than a 2 x 2 grid of fixed charts.
            QVERIFY(image.width() >= 2 * ChartExporter::barChartExportWidth());
            QVERIFY2(image.height() > 2 * 4 * 31 * QFontMetrics(QApplication::font()).height(),
                     qPrintable(QString::number(image.height())));
            return;
        }
        // The PDF's text comes back glyph by glyph through the fonts' maps of ASCII: each run of ASCII
        // letters of a label (between the non-ASCII separators), without the spaces between words.
        const bool svg = suffix == QLatin1String("svg");
        // (Qt's PDF maps the space glyph to a tab: every blank goes.)
        const QString text
            = svg ? QString::fromUtf8(bytes) : pdfText(bytes).remove(QRegularExpression(QStringLiteral("\\s")));
        static const QRegularExpression nonAscii(QStringLiteral("[^\\x21-\\x7e]+"));
        for (const RunRecord& r : runs) {
            const QString label = runChartLabel(r);
            if (svg) {
                QVERIFY2(text.contains(label.toHtmlEscaped()), qPrintable(label));
                continue;
            }
            const QStringList words = QString(label).remove(QLatin1Char(' ')).split(nonAscii, Qt::SkipEmptyParts);
            QVERIFY(words.size() >= 4);
            for (const QString& word : words)
                QVERIFY2(text.contains(word), qPrintable(word + QStringLiteral(" of ") + label));
        }
        QVERIFY(text.contains(svg ? QStringLiteral("CPU (Gloo)") : QStringLiteral("CPU(Gloo)")));
        if (suffix == QLatin1String("pdf"))
            QVERIFY2(bytes.count("/Type /Page") - bytes.count("/Type /Pages") >= 2,
                     "the charts take more than one page");
    }

    void reportFolderHoldsReasoningChartsAndCsv()
    {
        PlanView plan;
        plan.modelName = QStringLiteral("Qwen2.5 7B");
        plan.gpuName = QStringLiteral("NVIDIA H100 80GB");
        plan.interconnect = QStringLiteral("nvlink");
        plan.gpus = 8;
        plan.capacityGiB = 80;
        plan.usableGiB = 76;
        plan.headroomGiB = 4;
        plan.target = QStringLiteral("Shardwise runner");
        plan.summary = QStringLiteral("Use ZeRO-1: the lightest sharding that fits.");
        plan.steps
            = { { 1, QStringLiteral("Lightest sharding that fits"), StepVerdict::Decided,
                  QStringLiteral("zero0 short by 3.2 GiB; zero1 fits with 9.5 GiB to spare.") },
                { 2, QStringLiteral("Full sharding, chosen by interconnect"), StepVerdict::NotReached, QString() } };
        CandidateView zero0;
        zero0.strategy = Strategy::Zero0;
        zero0.peakGiB = 79.25;
        zero0.headroomGiB = -3.25;
        zero0.tokensPerS = 41000;
        zero0.stepTimeS = 0.8;
        zero0.memory = { { QStringLiteral("parameters"), 14.25 }, { QStringLiteral("optimizer state"), 65 } };
        CandidateView zero1 = zero0;
        zero1.strategy = Strategy::Zero1;
        zero1.fits = true;
        zero1.recommended = true;
        zero1.peakGiB = 66.5;
        zero1.headroomGiB = 9.5;
        zero1.memory = { { QStringLiteral("parameters"), 14.25 }, { QStringLiteral("optimizer state"), 52.25 } };
        plan.candidates = { zero0, zero1 };
        plan.hasRecommendation = true;
        plan.recommendation = Strategy::Zero1;

        QTemporaryDir dir;
        const QString folder = dir.filePath(QStringLiteral("report"));
        const ExportResult result = writePlanReport(plan, folder);
        QVERIFY2(result.ok, qPrintable(result.error));
        QDir out(folder);
        QCOMPARE(out.entryList(QDir::Files, QDir::Name),
                 QStringList({ QStringLiteral("candidates.csv"), QStringLiteral("memory.png"),
                               QStringLiteral("memory.svg"), QStringLiteral("reasoning.md") }));
        const QString md = QString::fromUtf8(readAll(out.filePath(QStringLiteral("reasoning.md"))));
        QVERIFY2(md.contains(plan.summary), qPrintable(md));
        QVERIFY2(md.contains(QStringLiteral("zero0 short by 3.2 GiB; zero1 fits with 9.5 GiB to spare.")),
                 qPrintable(md));
        QVERIFY2(md.contains(QStringLiteral("(memory.svg)")) && md.contains(QStringLiteral("candidates.csv")),
                 qPrintable(md));
        const QByteArray svg = readAll(out.filePath(QStringLiteral("memory.svg")));
        QVERIFY(QSvgRenderer(svg).isValid());
        for (const char* part : { "parameters", "optimizer state" })
            QVERIFY2(svg.contains(part), part); // the legend names every part of the stacked bars
        // As the page draws it: the strategies whole, the recommended and the fastest fitting one named
        // in the legend beside their marks.
        for (const char* text :
             { ">ZeRO-0 (DDP)<", ">ZeRO-1<", ">recommended: ZeRO-1<", ">fastest that fits: ZeRO-1<" })
            QVERIFY2(svg.contains(text), text);
        // The chart as a PDF keeps every legend entry too.
        const QString pdfPath = dir.filePath(QStringLiteral("memory.pdf"));
        const ExportResult pdf = ChartExporter::exportChart(createMemoryBreakdownChart(plan), QSize(960, 720), pdfPath,
                                                            { QStringLiteral("T"), {} });
        QVERIFY2(pdf.ok, qPrintable(pdf.error));
        const QString pdfWords = pdfText(readAll(pdfPath)).remove(QRegularExpression(QStringLiteral("\\s")));
        for (const char* text :
             { "parameters", "optimizerstate", "usable:", "recommended:ZeRO-1", "fastestthatfits:ZeRO-1" })
            QVERIFY2(pdfWords.contains(QLatin1String(text)), text);
        QImage png;
        QVERIFY(png.load(out.filePath(QStringLiteral("memory.png")), "PNG"));
        QCOMPARE(png.width(), 2 * ChartExporter::reportChartSize().width());
        const QList<QStringList> rows
            = csvRows(QString::fromUtf8(readAll(out.filePath(QStringLiteral("candidates.csv")))));
        QCOMPARE(rows.size(), 3);
        const QStringList header = rows.front();
        auto value
            = [&](int row, const char* column) { return rows.at(row).value(header.indexOf(QLatin1String(column))); };
        constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
        QCOMPARE(value(2, "strategy"), QStringLiteral("zero1"));
        QCOMPARE(value(2, "recommended"), QStringLiteral("true"));
        QCOMPARE(value(2, "peak_bytes"), QString::number(qint64(66.5 * kGiB)));
        QCOMPARE(value(1, "headroom_bytes"), QString::number(qint64(-3.25 * kGiB)));
        QCOMPARE(value(1, "tokens_per_second"), QStringLiteral("41000"));
        QCOMPARE(value(1, "step_seconds"), QStringLiteral("0.8"));
    }
};

SHARDWISE_GUI_TEST_MAIN(TestExport)
#include "test_export.moc"
