#pragma once
// The runners' --dump-params files (a JSON header line, then the parameters as raw fp32) read back,
// and compared as numpy.allclose does, for the tests that check one run's numbers against another's.

#include <QByteArray>
#include <QFile>
#include <QString>

#include <cmath>
#include <cstring>
#include <vector>

struct ParamDump {
    QByteArray header;
    std::vector<float> values;
};

inline ParamDump readParamDump(const QString& path)
{
    ParamDump d;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return d;
    d.header = f.readLine();
    const auto raw = f.readAll();
    d.values.resize(static_cast<std::size_t>(raw.size()) / sizeof(float));
    std::memcpy(d.values.data(), raw.constData(), d.values.size() * sizeof(float));
    return d;
}

// numpy.allclose semantics: |a - b| <= atol + rtol * |b|. The atol covers parameters that are
// (nearly) zero, where a relative bound means nothing. Empty when they agree; an empty dump never does.
inline QString firstMismatch(const std::vector<float>& got, const std::vector<float>& want, double rtol, double atol)
{
    if (got.size() != want.size() || got.empty())
        return QStringLiteral("size %1 vs %2").arg(got.size()).arg(want.size());
    for (std::size_t i = 0; i < got.size(); ++i)
        if (!(std::abs(static_cast<double>(got[i]) - want[i]) <= atol + rtol * std::abs(static_cast<double>(want[i]))))
            return QStringLiteral("element %1: %2 vs %3").arg(i).arg(got[i], 0, 'g', 9).arg(want[i], 0, 'g', 9);
    return {};
}
