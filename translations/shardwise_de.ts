<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
<context>
    <name>BackendText</name>
    <message>
        <source>PyTorch (shardwise-torch-runner)</source>
        <translation>PyTorch (shardwise-torch-runner)</translation>
    </message>
    <message>
        <source>Native runner (shardwise-runner)</source>
        <translation>Nativer Runner (shardwise-runner)</translation>
    </message>
    <message>
        <source>The PyTorch harness: DDP for zero0 and fully_shard (FSDP2) for the fsdp2 strategies, on a Transformers or plain PyTorch decoder. Needs python3 with torch where the ranks run.</source>
        <translation>Das PyTorch-Harness: DDP für zero0 und fully_shard (FSDP2) für die fsdp2-Strategien, auf einem Transformers- oder reinen PyTorch-Decoder. Braucht python3 mit torch dort, wo die Ränge laufen.</translation>
    </message>
    <message>
        <source>Shardwise&apos;s own LibTorch runner: every strategy, over flat per-unit buffers.</source>
        <translation>Shardwise&apos; eigener LibTorch-Runner: jede Strategie, über flache Puffer je Einheit.</translation>
    </message>
    <message>
        <source>PyTorch cannot express %1: the torch backend runs zero0 (DDP), fsdp2_noreshard, fsdp2_reshard and fsdp2_reshard_offload (fully_shard).</source>
        <translation>PyTorch kann %1 nicht ausdrücken: Das torch-Backend führt zero0 (DDP), fsdp2_noreshard, fsdp2_reshard und fsdp2_reshard_offload (fully_shard) aus.</translation>
    </message>
</context>
<context>
    <name>CaptionText</name>
    <message>
        <source>unknown</source>
        <translation>unbekannt</translation>
    </message>
    <message>
        <source>Shardwise comparison (no runs selected)</source>
        <translation>Shardwise-Vergleich (keine Läufe ausgewählt)</translation>
    </message>
    <message numerus="yes">
        <source>%1 on %2: %n run(s)</source>
        <translation>
            <numerusform>%1 auf %2: %n Lauf</numerusform>
            <numerusform>%1 auf %2: %n Läufe</numerusform>
        </translation>
    </message>
    <message>
        <source>Model: %1</source>
        <translation>Modell: %1</translation>
    </message>
    <message>
        <source>Hardware: %1</source>
        <translation>Hardware: %1</translation>
    </message>
    <message>
        <source>Software: %1</source>
        <translation>Software: %1</translation>
    </message>
    <message>
        <source>Allocator: %1</source>
        <translation>Allocator: %1</translation>
    </message>
    <message>
        <source>default</source>
        <translation>Standard</translation>
    </message>
    <message>
        <source>#%1 %2</source>
        <translation>#%1 %2</translation>
    </message>
    <message>
        <source>Not completed (no measured throughput): %1</source>
        <translation>Nicht abgeschlossen (kein gemessener Durchsatz): %1</translation>
    </message>
    <message>
        <source>NCCL share counts collective kernel time that overlaps compute; it is not waiting time.</source>
        <translation>Der NCCL-Anteil zählt die Laufzeit kollektiver Kernel, die sich mit Berechnung überlappt; er ist keine Wartezeit.</translation>
    </message>
    <message>
        <source>Predictions: none of these runs has one (only completed or out-of-memory runs on a known GPU preset, with their configuration stored, are predicted).</source>
        <translation>Vorhersagen: keiner dieser Läufe hat eine (vorhergesagt werden nur abgeschlossene oder an Speichermangel gescheiterte Läufe auf einem bekannten GPU-Preset, deren Konfiguration gespeichert ist).</translation>
    </message>
    <message>
        <source>Predictions: presets = the planner&apos;s built-in coefficients; calibrated = fitted to the stored runs (in-sample); error = (predicted - measured) / measured.</source>
        <translation>Vorhersagen: Presets = die eingebauten Koeffizienten des Planers; kalibriert = an die gespeicherten Läufe angepasst (in-sample); Fehler = (vorhergesagt - gemessen) / gemessen.</translation>
    </message>
    <message>
        <source>Measured vs predicted throughput — %1</source>
        <translation>Gemessener vs. vorhergesagter Durchsatz — %1</translation>
    </message>
    <message>
        <source>Backend: %1 (native = Shardwise&apos;s runner, torch = PyTorch DDP / FSDP2)</source>
        <translation>Backend: %1 (native = Shardwise&apos; Runner, torch = PyTorch DDP / FSDP2)</translation>
    </message>
    <message>
        <source>#%1 %2, %3: precision %4, micro-batch %5, sequence %6 tokens, %7 warm-up + %8 timed steps</source>
        <translation>#%1 %2, %3: Präzision %4, Micro-Batch %5, Sequenz %6 Token, %7 Aufwärm- + %8 gemessene Schritte</translation>
    </message>
    <message>
        <source>Step time: the median of the timed steps.</source>
        <translation>Schrittzeit: der Median der gemessenen Schritte.</translation>
    </message>
    <message>
        <source>Memory results only (rehearsals: one rank alone as rank 0 of world N, its peaks against the prediction for world N per rank; no throughput): %1</source>
        <translation>Nur Speicherergebnisse (Probeläufe: ein Rang allein als Rang 0 der Welt N, seine Spitzen gegen die Vorhersage für Welt N je Rang; kein Durchsatz): %1</translation>
    </message>
</context>
<context>
    <name>ChartText</name>
    <message>
        <source>%1, %2: %3</source>
        <translation>%1, %2: %3</translation>
    </message>
    <message>
        <source>%1 (of %2 in all)</source>
        <translation>%1 (von insgesamt %2)</translation>
    </message>
    <message>
        <source>%1 — %2</source>
        <translation>%1 — %2</translation>
    </message>
    <message>
        <source>Throughput (tokens/s, higher is better)</source>
        <translation>Durchsatz (Token/s, höher ist besser)</translation>
    </message>
    <message>
        <source>measured tokens/s</source>
        <translation>gemessene Token/s</translation>
    </message>
    <message>
        <source>tokens/s</source>
        <translation>Token/s</translation>
    </message>
    <message>
        <source>Peak memory per GPU (allocated vs reserved)</source>
        <translation>Spitzenspeicher je GPU (belegt vs. reserviert)</translation>
    </message>
    <message>
        <source>peak allocated</source>
        <translation>Spitze belegt</translation>
    </message>
    <message>
        <source>peak reserved</source>
        <translation>Spitze reserviert</translation>
    </message>
    <message>
        <source>GiB per GPU</source>
        <translation>GiB je GPU</translation>
    </message>
    <message>
        <source>Predicted vs measured throughput</source>
        <translation>Vorhergesagter vs. gemessener Durchsatz</translation>
    </message>
    <message>
        <source>predicted tokens/s</source>
        <translation>vorhergesagte Token/s</translation>
    </message>
    <message>
        <source>Check runs in the table to compare them.</source>
        <translation>Haken Sie Läufe in der Tabelle an, um sie zu vergleichen.</translation>
    </message>
    <message>
        <source>No plan yet</source>
        <translation>Noch kein Plan</translation>
    </message>
    <message>
        <source>Predicted memory per GPU: %1 on %2 x %3</source>
        <translation>Vorhergesagter Speicher je GPU: %1 auf %2 × %3</translation>
    </message>
    <message>
        <source>Tokens/s: measured vs predicted</source>
        <translation>Tokens/s: gemessen vs. vorhergesagt</translation>
    </message>
    <message>
        <source>measured</source>
        <translation>gemessen</translation>
    </message>
    <message>
        <source>presets</source>
        <translation>Presets</translation>
    </message>
    <message>
        <source>calibrated</source>
        <translation>kalibriert</translation>
    </message>
    <message>
        <source>predicted peak allocated</source>
        <translation>vorhergesagte Spitze belegt</translation>
    </message>
    <message>
        <source>The checked runs are rehearsals: memory results only.</source>
        <translation>Die markierten Läufe sind Probeläufe: nur Speicherergebnisse.</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>seq %1</source>
        <translation>Seq. %1</translation>
    </message>
    <message>
        <source>%1 × CPU</source>
        <translation>%1 × CPU</translation>
    </message>
    <message>
        <source>the GPU&apos;s memory</source>
        <translation>der GPU-Speicher</translation>
    </message>
    <message>
        <source>%1 — GPU memory %2</source>
        <translation>%1 — GPU-Speicher %2</translation>
    </message>
    <message>
        <source>Communication share of step time: NCCL on GPUs, Gloo on CPUs (overlaps compute; not waiting time)</source>
        <translation>Kommunikationsanteil an der Schrittzeit: NCCL auf GPUs, Gloo auf CPUs (überlappt Berechnung; keine Wartezeit)</translation>
    </message>
    <message>
        <source>communication share</source>
        <translation>Kommunikationsanteil</translation>
    </message>
    <message>
        <source>Gloo share, % of step time</source>
        <translation>Gloo-Anteil, % der Schrittzeit</translation>
    </message>
    <message>
        <source>NCCL kernel share, % of step time</source>
        <translation>NCCL-Kernel-Anteil, % der Schrittzeit</translation>
    </message>
    <message>
        <source>CPU (Gloo)</source>
        <translation>CPU (Gloo)</translation>
    </message>
    <message>
        <source>%1 (NCCL)</source>
        <translation>%1 (NCCL)</translation>
    </message>
    <message>
        <source>recommended: %1</source>
        <translation>empfohlen: %1</translation>
    </message>
    <message>
        <source>fastest that fits: %1</source>
        <translation>schnellste, die passt: %1</translation>
    </message>
    <message>
        <source>no GPU memory: measured on the CPU</source>
        <translation>kein GPU-Speicher: auf der CPU gemessen</translation>
    </message>
    <message>
        <source>usable: %1</source>
        <translation>nutzbar: %1</translation>
    </message>
</context>
<context>
    <name>CoreMessage</name>
    <message>
        <source>predicted peak %1 (%2 allocated + %3 CUDA context and NCCL) exceeds the usable %4 (the GPU&apos;s %5 less %6 headroom)</source>
        <translation>die vorhergesagte Spitze von %1 (%2 belegt + %3 CUDA-Kontext und NCCL) übersteigt die nutzbaren %4 (die %5 der GPU abzüglich %6 Reserve)</translation>
    </message>
    <message>
        <source>predicted peak %1 (%2 allocated + %3 CUDA context and NCCL) within the usable %4 (the GPU&apos;s %5 less %6 headroom)</source>
        <translation>die vorhergesagte Spitze von %1 (%2 belegt + %3 CUDA-Kontext und NCCL) liegt innerhalb der nutzbaren %4 (die %5 der GPU abzüglich %6 Reserve)</translation>
    </message>
    <message>
        <source>%1 does not fit: %2 by %3.</source>
        <translation>%1 passt nicht: %2 um %3.</translation>
    </message>
    <message>
        <source>%1 does not fit in host memory: it needs %2 per node, %3 over the %4 usable.</source>
        <translation>%1 passt nicht in den Hauptspeicher: Es braucht %2 je Knoten, %3 mehr als die nutzbaren %4.</translation>
    </message>
    <message>
        <source>%1 fits: %2, %3 to spare; predicted %4, step %5, MFU %6.</source>
        <translation>%1 passt: %2, %3 übrig; vorhergesagt %4, Schritt %5, MFU %6.</translation>
    </message>
    <message>
        <source>%1 fits: %2, %3 to spare; predicted %4, step %5, MFU %6. Host memory: %7 per node of %8 usable.</source>
        <translation>%1 passt: %2, %3 übrig; vorhergesagt %4, Schritt %5, MFU %6. Hauptspeicher: %7 je Knoten von %8 nutzbar.</translation>
    </message>
    <message>
        <source>Planned for %1 %2: precision %3, activation checkpointing %4%5; the figures are what the framework allocates and how fast it runs at its defaults (docs/formulas.md, &quot;Framework targets&quot;).</source>
        <translation>Geplant für %1 %2: Präzision %3, Activation Checkpointing %4%5; die Zahlen sind, was das Framework mit seinen Voreinstellungen belegt und wie schnell es damit läuft (docs/formulas.md, „Framework targets“).</translation>
    </message>
    <message>
        <source>off</source>
        <translation>aus</translation>
    </message>
    <message>
        <source>, torch.compile on each decoder layer</source>
        <translation>, torch.compile auf jeder Decoder-Schicht</translation>
    </message>
    <message>
        <source>%1 would fit with Shardwise&apos;s runner (predicted peak %2) but not in %3 at its defaults (%4).</source>
        <translation>%1 würde mit dem Runner von Shardwise passen (vorhergesagte Spitze %2), aber nicht in %3 mit dessen Voreinstellungen (%4).</translation>
    </message>
    <message>
        <source>DeepSpeed %1 keeps fp32 master weights, fp32 Adam moments and an fp32 gradient partition in %2 whatever bf16.enabled says: pure bf16 is planned there as bf16 with an fp32 master.</source>
        <translation>DeepSpeed %1 behält in %2 fp32-Master-Gewichte, fp32-Adam-Momente und eine fp32-Gradientenpartition, unabhängig davon, was bf16.enabled sagt: reines bf16 wird dort als bf16 mit fp32-Master geplant.</translation>
    </message>
    <message>
        <source>DeepSpeed %1 and later keep them in bf16 with bf16.bf16_master_weights_and_grads and bf16_optimizer_states (stages 1-3 without offload): plan for such a release to count that.</source>
        <translation>DeepSpeed %1 und neuer halten sie mit bf16.bf16_master_weights_and_grads und bf16_optimizer_states in bf16 (Stufen 1-3 ohne Offload): planen Sie für ein solches Release, damit das gezählt wird.</translation>
    </message>
    <message>
        <source>ZeRO-3&apos;s speed against PyTorch FSDP&apos;s full shard is uncertain: the plan predicts it at %1 fsdp2_reshard&apos;s tokens/s here, while published runs of one setup both ways range from %2 (Granite 7B on 4 x A100, Hugging Face blog, 2024) to %3 (Falcon-7B on 8 x A100 40GB, DeepSpeed issue 3901), both against FSDP1; DeepSpeed issue 5047 finds ZeRO-3 slower from one all-gather per small module, without figures.</source>
        <translation>Die Geschwindigkeit von ZeRO-3 gegenüber dem vollen Sharding von PyTorch FSDP ist unsicher: Der Plan sagt hier %1 der Tokens/s von fsdp2_reshard voraus, während veröffentlichte Läufe desselben Setups mit beiden von %2 (Granite 7B auf 4 x A100, Hugging-Face-Blog, 2024) bis %3 (Falcon-7B auf 8 x A100 40GB, DeepSpeed-Issue 3901) reichen, beide gegen FSDP1; DeepSpeed-Issue 5047 findet ZeRO-3 langsamer, weil es je kleinem Modul einen All-Gather ausführt, ohne Zahlen.</translation>
    </message>
    <message>
        <source>Step 1 decided: %1 is the lightest sharding that fits in GPU memory with headroom.</source>
        <translation>Schritt 1 hat entschieden: %1 ist das leichteste Sharding, das mit Reserve in den GPU-Speicher passt.</translation>
    </message>
    <message>
        <source>With one GPU there is nothing to shard across: every strategy holds the whole state, and sharding only adds copies.</source>
        <translation>Mit einer GPU gibt es nichts, worüber man sharden könnte: Jede Strategie hält den ganzen Zustand, und Sharding fügt nur Kopien hinzu.</translation>
    </message>
    <message>
        <source>Step 2 decided: no light sharding fits, so %1, %2&apos;s full shard, is chosen.</source>
        <translation>Schritt 2 hat entschieden: Kein leichtes Sharding passt, daher wird %1 gewählt, das volle Sharding von %2.</translation>
    </message>
    <message>
        <source>Step 2 decided: no light sharding fits, so full sharding is chosen by the interconnect (%1).</source>
        <translation>Schritt 2 hat entschieden: Kein leichtes Sharding passt, daher wird volles Sharding nach der Verbindung (%1) gewählt.</translation>
    </message>
    <message>
        <source>On NVLink the FSDP2-style full shard (fsdp2_reshard) was faster than ZeRO-3 in the reference benchmark.</source>
        <translation>Auf NVLink war das volle Sharding im FSDP2-Stil (fsdp2_reshard) im Referenz-Benchmark schneller als ZeRO-3.</translation>
    </message>
    <message>
        <source>On PCIe the ZeRO-3 style was faster in the reference benchmark, but only with the allocator&apos;s expandable segments; measure both full shards on this hardware.</source>
        <translation>Auf PCIe war der ZeRO-3-Stil im Referenz-Benchmark schneller, aber nur mit den erweiterbaren Segmenten des Allokators; messen Sie beide vollen Shardings auf dieser Hardware.</translation>
    </message>
    <message>
        <source>%1, the rule&apos;s choice, does not fit (short by %2), so %3 is recommended.</source>
        <translation>%1, die Wahl der Regel, passt nicht (es fehlen %2), daher wird %3 empfohlen.</translation>
    </message>
    <message>
        <source>Expandable segments are on, as the ZeRO-3 style needed on PCIe in the reference.</source>
        <translation>Erweiterbare Segmente sind eingeschaltet, wie sie der ZeRO-3-Stil auf PCIe in der Referenz brauchte.</translation>
    </message>
    <message>
        <source>Run it with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (--expandable-segments): in the reference the ZeRO-3 style completed on PCIe only with it.</source>
        <translation>Führen Sie es mit PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (--expandable-segments) aus: In der Referenz lief der ZeRO-3-Stil auf PCIe nur damit bis zum Ende.</translation>
    </message>
    <message>
        <source>The rule reads the link inside a node; across the %1 nodes the network (%2 per node) bounds both full shards&apos; collectives.</source>
        <translation>Die Regel betrachtet die Verbindung innerhalb eines Knotens; über die %1 Knoten hinweg begrenzt das Netzwerk (%2 je Knoten) die Kollektive beider vollen Shardings.</translation>
    </message>
    <message>
        <source>Step 3 decided: nothing fits without CPU offload, so %1, the lightest offload that fits, is the last resort.</source>
        <translation>Schritt 3 hat entschieden: Ohne CPU-Auslagerung passt nichts, daher ist %1, die leichteste passende Auslagerung, der letzte Ausweg.</translation>
    </message>
    <message>
        <source>Against %1, offload is predicted to cut the GPU peak by %2 and throughput by %3; in the reference benchmark CPU offload cut peak memory by roughly 40-65 % and throughput by roughly 3-9x.</source>
        <translation>Gegenüber %1 senkt die Auslagerung laut Vorhersage die GPU-Spitze um %2 und den Durchsatz um %3; im Referenz-Benchmark senkte CPU-Auslagerung den Spitzenspeicher um etwa 40-65 % und den Durchsatz um etwa das 3- bis 9-Fache.</translation>
    </message>
    <message>
        <source>No strategy fits on %1 x %2 with micro-batch %3 and sequence %4.</source>
        <translation>Keine Strategie passt auf %1 x %2 mit Micro-Batch %3 und Sequenz %4.</translation>
    </message>
    <message>
        <source>Closest: %1</source>
        <translation>Am nächsten: %1</translation>
    </message>
    <message>
        <source>Neither more GPUs, shorter sequences, a smaller micro-batch nor activation checkpointing makes any strategy fit within the searched ranges; a GPU with more memory is needed.</source>
        <translation>Weder mehr GPUs, kürzere Sequenzen, ein kleinerer Micro-Batch noch Activation Checkpointing bringen in den durchsuchten Bereichen eine Strategie zum Passen; es braucht eine GPU mit mehr Speicher.</translation>
    </message>
    <message>
        <source>Validate with a short run of the same model, precision, micro-batch, sequence length and GPU count before a long run.</source>
        <translation>Prüfen Sie vor einem langen Lauf mit einem kurzen Lauf desselben Modells, derselben Präzision, Micro-Batch-Größe, Sequenzlänge und GPU-Anzahl.</translation>
    </message>
    <message>
        <source>With activation checkpointing %1 would fit, at about a third more compute per step.</source>
        <translation>Mit Activation Checkpointing würde %1 passen, bei etwa einem Drittel mehr Rechenaufwand je Schritt.</translation>
    </message>
    <message>
        <source>With %1 GPUs (%2 nodes of %3) %4 would fit.</source>
        <translation>Mit %1 GPUs (%2 Knoten zu je %3) würde %4 passen.</translation>
    </message>
    <message>
        <source>With %1 GPUs (%2 nodes of %3) and activation checkpointing %4 would fit.</source>
        <translation>Mit %1 GPUs (%2 Knoten zu je %3) und Activation Checkpointing würde %4 passen.</translation>
    </message>
    <message>
        <source>With sequences of %1 tokens %2 would fit.</source>
        <translation>Mit Sequenzen von %1 Token würde %2 passen.</translation>
    </message>
    <message>
        <source>With sequences of %1 tokens and activation checkpointing %2 would fit.</source>
        <translation>Mit Sequenzen von %1 Token und Activation Checkpointing würde %2 passen.</translation>
    </message>
    <message>
        <source>With micro-batch %1 %2 would fit (raise gradient accumulation to keep the global batch).</source>
        <translation>Mit Micro-Batch %1 würde %2 passen (erhöhen Sie die Gradientenakkumulation, um den globalen Batch zu halten).</translation>
    </message>
    <message>
        <source>With micro-batch %1 and activation checkpointing %2 would fit (raise gradient accumulation to keep the global batch).</source>
        <translation>Mit Micro-Batch %1 und Activation Checkpointing würde %2 passen (erhöhen Sie die Gradientenakkumulation, um den globalen Batch zu halten).</translation>
    </message>
    <message>
        <source>%1 is predicted %2 faster than %3 (%4 against %5), beyond the predictions&apos; %6 error: %7. %8</source>
        <translation>%1 ist laut Vorhersage %2 schneller als %3 (%4 gegenüber %5), mehr als der Fehler der Vorhersagen von %6: %7. %8</translation>
    </message>
    <message>
        <source>The decision order keeps the lightest that fits, as heavier sharding brought no evidence of a speed-up in the reference benchmark; measure both.</source>
        <translation>Die Entscheidungsreihenfolge behält das leichteste passende Sharding, weil schwereres Sharding im Referenz-Benchmark keinen Hinweis auf einen Geschwindigkeitsgewinn brachte; messen Sie beide.</translation>
    </message>
    <message>
        <source>The recommendation stays the decision order&apos;s; measure both.</source>
        <translation>Die Empfehlung bleibt die der Entscheidungsreihenfolge; messen Sie beide.</translation>
    </message>
    <message>
        <source>%1 is also predicted the fastest that fits; next is %2 at %3 against %4.</source>
        <translation>%1 ist laut Vorhersage auch die schnellste passende Strategie; als Nächstes folgt %2 mit %3 gegenüber %4.</translation>
    </message>
    <message>
        <source>The fastest other strategy that fits, %1, is predicted at %2 against %3 for %4 (%5 faster), within the predictions&apos; %6 error; heavier sharding brought no evidence of a speed-up in the reference benchmark.</source>
        <translation>Die schnellste andere passende Strategie, %1, ist mit %2 gegenüber %3 für %4 vorhergesagt (%5 schneller), innerhalb des Fehlers der Vorhersagen von %6; schwereres Sharding brachte im Referenz-Benchmark keinen Hinweis auf einen Geschwindigkeitsgewinn.</translation>
    </message>
    <message>
        <source>it shards the optimizer step across the %1 GPUs, %2 per step against %3</source>
        <translation>es verteilt den Optimiererschritt auf die %1 GPUs, %2 je Schritt gegenüber %3</translation>
    </message>
    <message>
        <source>its optimizer step takes %1 against %2</source>
        <translation>sein Optimiererschritt dauert %1 gegenüber %2</translation>
    </message>
    <message>
        <source>less of its communication is left exposed, %1 per step against %2</source>
        <translation>weniger seiner Kommunikation bleibt unverdeckt, %1 je Schritt gegenüber %2</translation>
    </message>
    <message>
        <source>its per-parameter step overhead (flat-buffer copies, casts) is %1 against %2</source>
        <translation>sein Schrittaufwand je Parameter (Kopien flacher Puffer, Typumwandlungen) beträgt %1 gegenüber %2</translation>
    </message>
    <message>
        <source>its forward and backward take %1 per step against %2</source>
        <translation>sein Vorwärts- und Rückwärtsdurchlauf dauern %1 je Schritt gegenüber %2</translation>
    </message>
    <message>
        <source>its exposed host copies take %1 per step against %2</source>
        <translation>seine unverdeckten Host-Kopien dauern %1 je Schritt gegenüber %2</translation>
    </message>
    <message>
        <source>its CPU optimizer step adds %1 to a step against %2</source>
        <translation>sein CPU-Optimiererschritt fügt einem Schritt %1 hinzu gegenüber %2</translation>
    </message>
    <message>
        <source>presets</source>
        <translation>Voreinstellungen</translation>
    </message>
    <message>
        <source>probe of node %1</source>
        <translation>Messung von Knoten %1</translation>
    </message>
    <message>
        <source>%1 + %2</source>
        <translation>%1 + %2</translation>
    </message>
    <message>
        <source>%1; %2</source>
        <translation>%1; %2</translation>
    </message>
    <message>
        <source> at %1</source>
        <translation> um %1</translation>
    </message>
    <message>
        <source> at %1 (time of the nearest logged line)</source>
        <translation> um %1 (Zeit der nächsten protokollierten Zeile)</translation>
    </message>
    <message>
        <source> at %1 (%2&apos;s clock, offset %3; %4 on the reference clock)</source>
        <translation> um %1 (Uhr von %2, Abweichung %3; %4 auf der Referenzuhr)</translation>
    </message>
    <message>
        <source> at %1 (%2&apos;s clock, offset %3; %4 on the reference clock) (time of the nearest logged line)</source>
        <translation> um %1 (Uhr von %2, Abweichung %3; %4 auf der Referenzuhr) (Zeit der nächsten protokollierten Zeile)</translation>
    </message>
    <message>
        <source>the node</source>
        <translation>dem Knoten</translation>
    </message>
    <message>
        <source>the program</source>
        <translation>Das Programm</translation>
    </message>
    <message>
        <source>rank %1</source>
        <translation>Rang %1</translation>
    </message>
    <message>
        <source>rank %1 on %2</source>
        <translation>Rang %1 auf %2</translation>
    </message>
    <message>
        <source>the launcher</source>
        <translation>der Launcher</translation>
    </message>
    <message>
        <source>the launcher on %1</source>
        <translation>der Launcher auf %1</translation>
    </message>
    <message>
        <source>Every rank with a known exit code exited 0.</source>
        <translation>Jeder Rang mit bekanntem Exit-Code endete mit 0.</translation>
    </message>
    <message>
        <source>No exit codes or run summaries were given, so completion itself is not confirmed.</source>
        <translation>Es wurden weder Exit-Codes noch Laufzusammenfassungen übergeben, daher ist der Abschluss selbst nicht bestätigt.</translation>
    </message>
    <message>
        <source>The first failure: %1 — %2%3.</source>
        <translation>Der erste Fehler: %1 — %2%3.</translation>
    </message>
    <message>
        <source>Host memory ran out, not GPU memory: CPU offload and data loading live there.</source>
        <translation>Der Hauptspeicher ist ausgegangen, nicht der GPU-Speicher: CPU-Auslagerung und Datenladen liegen dort.</translation>
    </message>
    <message>
        <source>It tried to allocate %1.</source>
        <translation>Es versuchte, %1 zu belegen.</translation>
    </message>
    <message>
        <source>It tried to allocate %1 with %2 free.</source>
        <translation>Es versuchte, %1 zu belegen, bei %2 frei.</translation>
    </message>
    <message>
        <source>It tried to allocate %1 of %2.</source>
        <translation>Es versuchte, %1 von %2 zu belegen.</translation>
    </message>
    <message>
        <source>It tried to allocate %1 with %2 free of %3.</source>
        <translation>Es versuchte, %1 zu belegen, bei %2 frei von %3.</translation>
    </message>
    <message>
        <source>%1 was reserved by PyTorch but unallocated — more than the failed request, so fragmentation of the caching allocator is likely.</source>
        <translation>%1 waren von PyTorch reserviert, aber nicht belegt — mehr als die gescheiterte Anforderung, daher ist eine Fragmentierung des Caching-Allokators wahrscheinlich.</translation>
    </message>
    <message>
        <source>%1 was reserved by PyTorch but unallocated, less than the request: this is not fragmentation, the model state does not fit.</source>
        <translation>%1 waren von PyTorch reserviert, aber nicht belegt, weniger als die Anforderung: Das ist keine Fragmentierung, der Modellzustand passt nicht.</translation>
    </message>
    <message>
        <source>Expandable segments were already on, so the allocator flag will not help.</source>
        <translation>Erweiterbare Segmente waren bereits eingeschaltet, daher hilft der Allokator-Schalter nicht.</translation>
    </message>
    <message>
        <source>Its last line (%1:%2) was: &quot;%3&quot;.</source>
        <translation>Seine letzte Zeile (%1:%2) war: „%3“.</translation>
    </message>
    <message>
        <source>%1 stopped at start-up because its argument parser rejected &quot;%2&quot;.</source>
        <translation>%1 hielt beim Start an, weil sein Argument-Parser „%2“ zurückwies.</translation>
    </message>
    <message>
        <source>The ranks never met, so no training step ran.</source>
        <translation>Die Ränge haben sich nie getroffen, daher lief kein Trainingsschritt.</translation>
    </message>
    <message>
        <source>No primary failure was found: only symptoms (%1 on ranks %2).</source>
        <translation>Es wurde kein primärer Fehler gefunden, nur Symptome (%1 auf den Rängen %2).</translation>
    </message>
    <message>
        <source>These follow a failure or a hang elsewhere; the cause left no error in these records.</source>
        <translation>Sie folgen auf einen Fehler oder ein Hängen an anderer Stelle; die Ursache hat in diesen Aufzeichnungen keinen Fehler hinterlassen.</translation>
    </message>
    <message>
        <source>SeqNum %1 on ranks %2</source>
        <translation>SeqNum %1 auf den Rängen %2</translation>
    </message>
    <message>
        <source>The ranks timed out in different collectives (%1): they are out of step, e.g. a data-dependent branch skipped a collective on some ranks.</source>
        <translation>Die Ränge liefen in verschiedenen Kollektiven in die Zeitüberschreitung (%1): Sie sind aus dem Takt, z. B. hat ein datenabhängiger Zweig auf manchen Rängen ein Kollektiv übersprungen.</translation>
    </message>
    <message>
        <source>Ranks %1 reported neither the hang nor an error of their own: look at them first.</source>
        <translation>Die Ränge %1 meldeten weder das Hängen noch einen eigenen Fehler: Sehen Sie sich diese zuerst an.</translation>
    </message>
    <message>
        <source>%1 on ranks %2</source>
        <translation>%1 auf den Rängen %2</translation>
    </message>
    <message>
        <source>It is the first of %1 failures across the run.</source>
        <translation>Er ist der erste von %1 Fehlern im Lauf.</translation>
    </message>
    <message>
        <source>It is the first of %1 failures across the run; the symptoms that followed (%2) are consequences of it, not causes.</source>
        <translation>Er ist der erste von %1 Fehlern im Lauf; die folgenden Symptome (%2) sind seine Folgen, nicht Ursachen.</translation>
    </message>
    <message>
        <source>Check host memory on %1: offloaded optimizer state and parameters live there; use fewer ranks per node or nodes with more RAM.</source>
        <translation>Prüfen Sie den Hauptspeicher auf %1: Ausgelagerter Optimiererzustand und Parameter liegen dort; verwenden Sie weniger Ränge je Knoten oder Knoten mit mehr RAM.</translation>
    </message>
    <message>
        <source>Rerun once with %1 as a diagnostic: if it then fits, fragmentation was the problem and memory is still tight; if it still runs out of memory, the flag is not the fix.</source>
        <translation>Wiederholen Sie den Lauf einmal mit %1 als Diagnose: Passt es dann, war Fragmentierung das Problem und der Speicher ist trotzdem knapp; läuft der Speicher weiterhin aus, ist der Schalter nicht die Lösung.</translation>
    </message>
    <message>
        <source>PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (PYTORCH_ALLOC_CONF in newer PyTorch)</source>
        <translation>PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (PYTORCH_ALLOC_CONF in neueren PyTorch-Versionen)</translation>
    </message>
    <message>
        <source>Shard deeper: %1 → %2 (%3)</source>
        <translation>Tiefer sharden: %1 → %2 (%3)</translation>
    </message>
    <message>
        <source>If the deepest sharding still does not fit, offload to the CPU: %1 (cut peak GPU memory by roughly 40–65% and throughput by roughly 3–9x in the reference benchmark).</source>
        <translation>Passt auch das tiefste Sharding nicht, lagern Sie auf die CPU aus: %1 (senkte im Referenz-Benchmark den GPU-Spitzenspeicher um etwa 40–65 % und den Durchsatz um etwa das 3- bis 9-Fache).</translation>
    </message>
    <message>
        <source>%1 already offloads to the CPU: use more GPUs, a smaller micro-batch or a shorter sequence length.</source>
        <translation>%1 lagert bereits auf die CPU aus: Verwenden Sie mehr GPUs, einen kleineren Micro-Batch oder eine kürzere Sequenzlänge.</translation>
    </message>
    <message>
        <source>Shard deeper: the next ZeRO stage (zero1 → zero2 → zero3) or FSDP2 with reshard_after_forward=True (fsdp2_reshard).</source>
        <translation>Tiefer sharden: die nächste ZeRO-Stufe (zero1 → zero2 → zero3) oder FSDP2 mit reshard_after_forward=True (fsdp2_reshard).</translation>
    </message>
    <message>
        <source>If the deepest sharding still does not fit, offload to the CPU (zero2_offload, zero3_offload or fsdp2_reshard_offload), at a large cost in throughput.</source>
        <translation>Passt auch das tiefste Sharding nicht, lagern Sie auf die CPU aus (zero2_offload, zero3_offload oder fsdp2_reshard_offload), zu hohen Kosten beim Durchsatz.</translation>
    </message>
    <message>
        <source>%1 stopped emitting events while its peers waited for it in a collective: it was stopped (SIGSTOP, Ctrl-Z, a debugger), stuck (in I/O, data loading, a deadlock) or its node froze; the peers&apos; timeouts are the consequence, not a network fault. While it hangs, `ps -o stat= -p &lt;pid&gt;` (T = stopped, D = waiting on I/O) and `py-spy dump --pid &lt;pid&gt;` / `gdb -p &lt;pid&gt;` show where it is.</source>
        <translation>%1 hat keine Ereignisse mehr gesendet, während seine Peers in einem Kollektiv auf ihn warteten: Er wurde angehalten (SIGSTOP, Strg-Z, ein Debugger), hing fest (in E/A, beim Datenladen, in einem Deadlock) oder sein Knoten fror ein; die Zeitüberschreitungen der Peers sind die Folge, kein Netzwerkfehler. Solange er hängt, zeigen `ps -o stat= -p &lt;pid&gt;` (T = angehalten, D = wartet auf E/A) und `py-spy dump --pid &lt;pid&gt;` / `gdb -p &lt;pid&gt;`, wo er steht.</translation>
    </message>
    <message>
        <source>The dispatcher lost %1: check whether it is up (reboot, preemption, network partition) before rerunning; its kernel log and the cloud&apos;s preemption and maintenance events say why.</source>
        <translation>Der Dispatcher hat die Verbindung zu %1 verloren: Prüfen Sie vor einem erneuten Lauf, ob er erreichbar ist (Neustart, Preemption, Netzwerkpartition); sein Kernel-Log und die Preemption- und Wartungsereignisse der Cloud sagen, warum.</translation>
    </message>
    <message>
        <source>The kernel&apos;s OOM killer ended it: host memory on %1 ran out. CPU offload, pinned buffers and data-loader workers use host memory: reduce them or use a node with more RAM.</source>
        <translation>Der OOM-Killer des Kernels hat ihn beendet: Der Hauptspeicher auf %1 ist ausgegangen. CPU-Auslagerung, gepinnte Puffer und Data-Loader-Worker belegen Hauptspeicher: Verringern Sie sie oder verwenden Sie einen Knoten mit mehr RAM.</translation>
    </message>
    <message>
        <source>SIGKILL (exit code 137) is what the kernel&apos;s OOM killer, a preemption or maintenance event, or an operator&apos;s kill -9 look like: on %1 look at `journalctl -k` / `dmesg -T` for &quot;Out of memory: Killed process&quot;, and at the cloud&apos;s preemption and maintenance events.</source>
        <translation>SIGKILL (Exit-Code 137) sieht so aus, wenn der OOM-Killer des Kernels, eine Preemption oder ein Wartungsereignis oder das kill -9 eines Operators zuschlägt: Sehen Sie auf %1 in `journalctl -k` / `dmesg -T` nach „Out of memory: Killed process“ und in die Preemption- und Wartungsereignisse der Cloud.</translation>
    </message>
    <message>
        <source>torchrun always passes the local rank in the LOCAL_RANK environment variable and has no --use_env option: remove --use_env / --use-env from the command line.</source>
        <translation>torchrun übergibt den lokalen Rang immer in der Umgebungsvariable LOCAL_RANK und hat keine Option --use_env: Entfernen Sie --use_env / --use-env aus der Befehlszeile.</translation>
    </message>
    <message>
        <source>The launcher appended %1. Either accept it in the script (argparse: parser.add_argument(&quot;--local-rank&quot;, &quot;--local_rank&quot;, type=int, default=int(os.environ.get(&quot;LOCAL_RANK&quot;, 0)))), or stop the launcher from passing it: torchrun never passes it and sets LOCAL_RANK instead; python -m torch.distributed.launch stops with --use-env (--use_env before PyTorch 2.0); DeepSpeed&apos;s launcher stops with --no_local_rank.</source>
        <translation>Der Launcher hat %1 angehängt. Akzeptieren Sie es entweder im Skript (argparse: parser.add_argument(&quot;--local-rank&quot;, &quot;--local_rank&quot;, type=int, default=int(os.environ.get(&quot;LOCAL_RANK&quot;, 0)))) oder hindern Sie den Launcher daran, es zu übergeben: torchrun übergibt es nie und setzt stattdessen LOCAL_RANK; python -m torch.distributed.launch hört mit --use-env auf (--use_env vor PyTorch 2.0); der Launcher von DeepSpeed hört mit --no_local_rank auf.</translation>
    </message>
    <message>
        <source>Remove &quot;%1&quot; from the command line or add it to %2&apos;s argument parser.</source>
        <translation>Entfernen Sie „%1“ aus der Befehlszeile oder fügen Sie es dem Argument-Parser von %2 hinzu.</translation>
    </message>
    <message>
        <source>Check that MASTER_ADDR:MASTER_PORT is reachable from every node (firewall, the address of the right interface), that every node was started, and that all use the same port and world size.</source>
        <translation>Prüfen Sie, dass MASTER_ADDR:MASTER_PORT von jedem Knoten erreichbar ist (Firewall, die Adresse der richtigen Schnittstelle), dass jeder Knoten gestartet wurde und dass alle denselben Port und dieselbe Weltgröße verwenden.</translation>
    </message>
    <message>
        <source>Rerun with NCCL_DEBUG=INFO to see the failing call. Common causes: the wrong network interface (set NCCL_SOCKET_IFNAME), a firewall between the nodes, too little /dev/shm in a container (test with NCCL_SHM_DISABLE=1), InfiniBand set-up (test with NCCL_IB_DISABLE=1), different NCCL versions on the nodes.</source>
        <translation>Wiederholen Sie den Lauf mit NCCL_DEBUG=INFO, um den fehlschlagenden Aufruf zu sehen. Häufige Ursachen: die falsche Netzwerkschnittstelle (NCCL_SOCKET_IFNAME setzen), eine Firewall zwischen den Knoten, zu wenig /dev/shm in einem Container (mit NCCL_SHM_DISABLE=1 testen), die InfiniBand-Einrichtung (mit NCCL_IB_DISABLE=1 testen), unterschiedliche NCCL-Versionen auf den Knoten.</translation>
    </message>
    <message>
        <source>Look at ranks %1 first: they never reported the hang, so they are the likely culprits (stuck in another collective, in data loading or I/O, or gone without a trace); check their nodes for killed processes.</source>
        <translation>Sehen Sie sich zuerst die Ränge %1 an: Sie haben das Hängen nie gemeldet und sind daher die wahrscheinlichen Verursacher (in einem anderen Kollektiv, beim Datenladen oder in E/A festgefahren oder spurlos verschwunden); prüfen Sie ihre Knoten auf beendete Prozesse.</translation>
    </message>
    <message>
        <source>Rerun with NCCL_DEBUG=INFO, TORCH_NCCL_TRACE_BUFFER_SIZE=2000 and TORCH_NCCL_DUMP_ON_TIMEOUT=1 (PyTorch&apos;s NCCL flight recorder) and TORCH_NCCL_DESYNC_DEBUG=1; while it hangs, `py-spy dump --pid &lt;pid&gt;` on every rank shows where each one waits.</source>
        <translation>Wiederholen Sie den Lauf mit NCCL_DEBUG=INFO, TORCH_NCCL_TRACE_BUFFER_SIZE=2000 und TORCH_NCCL_DUMP_ON_TIMEOUT=1 (dem NCCL-Flugschreiber von PyTorch) und TORCH_NCCL_DESYNC_DEBUG=1; solange er hängt, zeigt `py-spy dump --pid &lt;pid&gt;` auf jedem Rang, worauf jeder wartet.</translation>
    </message>
    <message>
        <source>Fix the run configuration and rerun: %1</source>
        <translation>Korrigieren Sie die Laufkonfiguration und wiederholen Sie den Lauf: %1</translation>
    </message>
    <message>
        <source>Read %1&apos;s error in full.</source>
        <translation>Lesen Sie den Fehler von %1 vollständig.</translation>
    </message>
    <message>
        <source>Read %1&apos;s error in full (%2).</source>
        <translation>Lesen Sie den Fehler von %1 vollständig (%2).</translation>
    </message>
    <message numerus="yes">
        <source>No failure was recognised in %n record(s).</source>
        <translation>
            <numerusform>In %n Aufzeichnung wurde kein Fehler erkannt.</numerusform>
            <numerusform>In %n Aufzeichnungen wurde kein Fehler erkannt.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n rank(s) reported a run summary.</source>
        <translation>
            <numerusform>%n Rang meldete eine Laufzusammenfassung.</numerusform>
            <numerusform>%n Ränge meldeten eine Laufzusammenfassung.</numerusform>
        </translation>
    </message>
    <message>
        <source>No failure carries a time; the root cause is chosen by kind (a failure that needs no other failure to happen comes first), not by order.</source>
        <translation>Kein Fehler trägt eine Zeit; die Ursache wird nach Art gewählt (ein Fehler, der keinen anderen Fehler braucht, kommt zuerst), nicht nach Reihenfolge.</translation>
    </message>
    <message>
        <source>The %1 on %2 happened %3 before the first primary failure (%4), more than the clock uncertainty of %5, so that failure cannot have caused it.</source>
        <translation>Das %1 auf %2 geschah %3 vor dem ersten primären Fehler (%4), mehr als die Unsicherheit der Uhren von %5, daher kann jener Fehler es nicht verursacht haben.</translation>
    </message>
    <message>
        <source>Other primary failures lie within the clock uncertainty of the root cause; give the nodes&apos; clock offsets (meta.json &quot;nodes&quot;: {&quot;&lt;node&gt;&quot;: {&quot;clock_offset_s&quot;: ...}}) to order them for certain.</source>
        <translation>Andere primäre Fehler liegen innerhalb der Unsicherheit der Uhren um die Ursache; geben Sie die Uhrabweichungen der Knoten an (meta.json &quot;nodes&quot;: {&quot;&lt;node&gt;&quot;: {&quot;clock_offset_s&quot;: ...}}), um sie sicher zu ordnen.</translation>
    </message>
    <message>
        <source>The earliest-looking primary failure (%1, %2) is of a kind that a failure elsewhere often provokes, and another primary failure lies within the clock uncertainty; the failure that needs no other failure to happen was preferred.</source>
        <translation>Der scheinbar früheste primäre Fehler (%1, %2) ist von einer Art, die ein Fehler an anderer Stelle oft auslöst, und ein anderer primärer Fehler liegt innerhalb der Unsicherheit der Uhren; der Fehler, der keinen anderen Fehler braucht, wurde vorgezogen.</translation>
    </message>
    <message numerus="yes">
        <source>%n primary failure(s) carry no time and could not be ordered against the root cause.</source>
        <translation>
            <numerusform>%n primärer Fehler trägt keine Zeit und konnte nicht gegen die Ursache geordnet werden.</numerusform>
            <numerusform>%n primäre Fehler tragen keine Zeit und konnten nicht gegen die Ursache geordnet werden.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n run(s)</source>
        <translation>
            <numerusform>%n Lauf</numerusform>
            <numerusform>%n Läufen</numerusform>
        </translation>
    </message>
    <message>
        <source>%1x</source>
        <translation>%1x</translation>
    </message>
    <message>
        <source>%1 GB/s</source>
        <translation>%1 GB/s</translation>
    </message>
    <message>
        <source>%1 MiB</source>
        <translation>%1 MiB</translation>
    </message>
    <message>
        <source>%1 KiB</source>
        <translation>%1 KiB</translation>
    </message>
    <message>
        <source>%1 B</source>
        <translation>%1 B</translation>
    </message>
</context>
<context>
    <name>DiagnosisText</name>
    <message>
        <source>Out of memory</source>
        <translation>Speicher erschöpft</translation>
    </message>
    <message>
        <source>Rank or node lost</source>
        <translation>Rang oder Knoten verloren</translation>
    </message>
    <message>
        <source>Collective watchdog timeout</source>
        <translation>Watchdog-Zeitüberschreitung einer Kollektivoperation</translation>
    </message>
    <message>
        <source>Launcher arguments</source>
        <translation>Launcher-Argumente</translation>
    </message>
    <message>
        <source>Communication error</source>
        <translation>Kommunikationsfehler</translation>
    </message>
    <message>
        <source>Configuration rejected</source>
        <translation>Konfiguration abgelehnt</translation>
    </message>
    <message>
        <source>Other failure</source>
        <translation>Anderer Fehler</translation>
    </message>
</context>
<context>
    <name>DisplayFormat</name>
    <message>
        <source>%1 GiB</source>
        <translation>%1 GiB</translation>
    </message>
    <message>
        <source>%1 tokens/s</source>
        <translation>%1 Token/s</translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation>%1 %</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 ms</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 s</translation>
    </message>
    <message>
        <source>No sharding: every rank holds full parameters, gradients and optimizer state; gradients are all-reduced.</source>
        <translation>Kein Sharding: Jeder Rang hält alle Parameter, Gradienten und den Optimiererzustand; Gradienten werden per All-Reduce gemittelt.</translation>
    </message>
    <message>
        <source>Optimizer state sharded across ranks.</source>
        <translation>Optimiererzustand über die Ränge verteilt.</translation>
    </message>
    <message>
        <source>Optimizer state and gradients sharded; gradients are reduce-scattered.</source>
        <translation>Optimiererzustand und Gradienten verteilt; Gradienten per Reduce-Scatter.</translation>
    </message>
    <message>
        <source>Optimizer state, gradients and parameters sharded; parameters are all-gathered per layer for forward and again for backward.</source>
        <translation>Optimiererzustand, Gradienten und Parameter verteilt; Parameter werden je Schicht für den Vorwärts- und erneut für den Rückwärtsdurchlauf per All-Gather gesammelt.</translation>
    </message>
    <message>
        <source>ZeRO-2 with optimizer state and the optimizer step on the CPU; full parameters stay on every GPU.</source>
        <translation>ZeRO-2 mit Optimiererzustand und Optimiererschritt auf der CPU; die vollständigen Parameter bleiben auf jeder GPU.</translation>
    </message>
    <message>
        <source>ZeRO-3 with optimizer state and the optimizer step on the CPU.</source>
        <translation>ZeRO-3 mit Optimiererzustand und Optimiererschritt auf der CPU.</translation>
    </message>
    <message>
        <source>FSDP2 with reshard_after_forward=False: parameters gathered in forward stay gathered through backward.</source>
        <translation>FSDP2 mit reshard_after_forward=False: Im Vorwärtsdurchlauf gesammelte Parameter bleiben bis zum Rückwärtsdurchlauf gesammelt.</translation>
    </message>
    <message>
        <source>FSDP2 with reshard_after_forward=True: parameters are freed after each layer&apos;s forward and gathered again for its backward.</source>
        <translation>FSDP2 mit reshard_after_forward=True: Parameter werden nach dem Vorwärtsdurchlauf jeder Schicht freigegeben und für ihren Rückwärtsdurchlauf erneut gesammelt.</translation>
    </message>
    <message>
        <source>FSDP2 reshard with parameters, gradients and optimizer state in CPU memory and the optimizer step on the CPU.</source>
        <translation>FSDP2 Reshard mit Parametern, Gradienten und Optimiererzustand im CPU-Speicher und dem Optimiererschritt auf der CPU.</translation>
    </message>
    <message>
        <source>Peak memory per GPU: the most the caching allocator holds for tensors at any moment of a step (parameters, gradients, optimizer state, activations and communication buffers).</source>
        <translation>Spitzenspeicher je GPU: das Maximum, das der Caching-Allocator zu irgendeinem Zeitpunkt eines Schritts für Tensoren hält (Parameter, Gradienten, Optimiererzustand, Aktivierungen und Kommunikationspuffer).</translation>
    </message>
    <message>
        <source>Tokens per second over all GPUs, from the median step time of the timed steps after warm-up.</source>
        <translation>Token pro Sekunde über alle GPUs, aus dem Median der Schrittzeit der gemessenen Schritte nach dem Aufwärmen.</translation>
    </message>
    <message>
        <source>Model FLOPs utilisation: the training FLOPs the model needs per second at this throughput, divided by the GPUs&apos; dense bf16 peak. 6 x parameters x tokens for forward and backward.</source>
        <translation>Model-FLOPs-Auslastung: die Trainings-FLOPs, die das Modell bei diesem Durchsatz pro Sekunde braucht, geteilt durch die dichte bf16-Spitzenleistung der GPUs. 6 × Parameter × Token für Vorwärts- und Rückwärtsdurchlauf.</translation>
    </message>
    <message>
        <source>NCCL share: time the collective kernels run, divided by the step time. Communication kernels overlap compute, so this is not the time spent waiting; a high share can still cost nothing when it is hidden behind computation.</source>
        <translation>NCCL-Anteil: Laufzeit der Kollektiv-Kernel geteilt durch die Schrittzeit. Kommunikationskernel überlappen mit Berechnung, daher ist das nicht die Wartezeit; ein hoher Anteil kann nichts kosten, wenn er hinter der Berechnung verborgen ist.</translation>
    </message>
    <message>
        <source>Reserved: memory the caching allocator holds from the driver, allocated or not. Reserved far above allocated means fragmentation; expandable_segments:True can reduce it.</source>
        <translation>Reserviert: Speicher, den der Caching-Allocator vom Treiber hält, ob belegt oder nicht. Reserviert weit über belegt bedeutet Fragmentierung; expandable_segments:True kann sie verringern.</translation>
    </message>
    <message>
        <source>rehearsal of %1</source>
        <extracomment>the world of a run that ran one rank alone as rank 0 of a world of N ranks</extracomment>
        <translation>Probelauf von %1</translation>
    </message>
    <message>
        <source>A rehearsal measures memory only: one rank ran alone as rank 0 of world %1 through a communicator that moves no data, so its peaks are one rank&apos;s at world %1, and its steps hold no communication: it has no tokens/s, step time or NCCL share of world %1.</source>
        <translation>Ein Probelauf misst nur Speicher: Ein Rang lief allein als Rang 0 der Welt %1 über einen Kommunikator, der keine Daten bewegt. Seine Spitzen sind die eines Rangs bei Welt %1, und seine Schritte enthalten keine Kommunikation: Er hat keine Tokens/s, keine Schrittzeit und keinen NCCL-Anteil der Welt %1.</translation>
    </message>
    <message>
        <source>—</source>
        <extracomment>in place of a figure a run did not measure</extracomment>
        <translation>—</translation>
    </message>
</context>
<context>
    <name>EtaText</name>
    <message>
        <source>%1 h %2 min</source>
        <extracomment>a duration: hours and minutes</extracomment>
        <translation>%1 h %2 min</translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <extracomment>a duration: minutes and seconds</extracomment>
        <translation>%1 min %2 s</translation>
    </message>
    <message>
        <source>%1 s</source>
        <extracomment>a duration: seconds</extracomment>
        <translation>%1 s</translation>
    </message>
    <message>
        <source>estimating…</source>
        <extracomment>time left of a run with fewer than two steps done</extracomment>
        <translation>wird geschätzt…</translation>
    </message>
    <message>
        <source>unknown</source>
        <extracomment>time left of a run nothing predicted</extracomment>
        <translation>unbekannt</translation>
    </message>
    <message>
        <source>about %1 (predicted)</source>
        <translation>etwa %1 (vorhergesagt)</translation>
    </message>
    <message>
        <source>about %1</source>
        <translation>etwa %1</translation>
    </message>
</context>
<context>
    <name>ExportText</name>
    <message>
        <source>%1: the chart has no size to render</source>
        <translation>%1: Das Diagramm hat keine Größe zum Zeichnen</translation>
    </message>
    <message>
        <source>%1: cannot write the PNG file (%2); the previous file is kept</source>
        <translation>%1: Die PNG-Datei kann nicht geschrieben werden (%2); die bisherige Datei bleibt erhalten</translation>
    </message>
    <message>
        <source>%1: cannot write the SVG file</source>
        <translation>%1: Die SVG-Datei kann nicht geschrieben werden</translation>
    </message>
    <message>
        <source>%1: cannot write the SVG file (%2); the previous file is kept</source>
        <translation>%1: Die SVG-Datei kann nicht geschrieben werden (%2); die bisherige Datei bleibt erhalten</translation>
    </message>
    <message>
        <source>%1: cannot write the PDF file</source>
        <translation>%1: Die PDF-Datei kann nicht geschrieben werden</translation>
    </message>
    <message>
        <source>%1: cannot write the PDF file (%2); the previous file is kept</source>
        <translation>%1: Die PDF-Datei kann nicht geschrieben werden (%2); die bisherige Datei bleibt erhalten</translation>
    </message>
    <message>
        <source>%1: unknown chart format &quot;%2&quot;; use one of: %3</source>
        <translation>%1: unbekanntes Diagrammformat „%2“; verwenden Sie eines von: %3</translation>
    </message>
    <message>
        <source>%1: unknown table format &quot;%2&quot;; use one of: %3</source>
        <translation>%1: unbekanntes Tabellenformat „%2“; verwenden Sie eines von: %3</translation>
    </message>
    <message>
        <source>%1: cannot write: %2</source>
        <translation>%1: kann nicht geschrieben werden: %2</translation>
    </message>
</context>
<context>
    <name>PageCatalog</name>
    <message>
        <source>Plan</source>
        <translation>Planen</translation>
    </message>
    <message>
        <source>Build a configuration and follow the decision order to a recommendation</source>
        <translation>Eine Konfiguration aufbauen und der Entscheidungsreihenfolge zu einer Empfehlung folgen</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>Vergleichen</translation>
    </message>
    <message>
        <source>Chart measured runs side by side and export the charts for a report</source>
        <translation>Gemessene Läufe nebeneinander darstellen und die Diagramme für einen Bericht exportieren</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>Läufe</translation>
    </message>
    <message>
        <source>Queue measured runs, watch every rank live and see why a failed run failed</source>
        <translation>Messläufe einreihen, jeden Rang live verfolgen und sehen, warum ein Lauf fehlschlug</translation>
    </message>
    <message>
        <source>Nodes</source>
        <translation>Knoten</translation>
    </message>
    <message>
        <source>Add this machine and SSH nodes, check their host keys and see their GPUs and software</source>
        <translation>Diesen Rechner und SSH-Knoten hinzufügen, ihre Hostschlüssel prüfen und ihre GPUs und Software sehen</translation>
    </message>
    <message>
        <source>Cloud</source>
        <translation>Cloud</translation>
    </message>
    <message>
        <source>Prepare GPU capacity on GKE for the current plan: checklist, commands and Job manifest</source>
        <translation>GPU-Kapazität auf GKE für den aktuellen Plan vorbereiten: Checkliste, Befehle und Job-Manifest</translation>
    </message>
</context>
<context>
    <name>PlanText</name>
    <message>
        <source>parameters</source>
        <translation>Parameter</translation>
    </message>
    <message>
        <source>gradients</source>
        <translation>Gradienten</translation>
    </message>
    <message>
        <source>optimizer state</source>
        <translation>Optimiererzustand</translation>
    </message>
    <message>
        <source>gathered parameters</source>
        <translation>gesammelte Parameter</translation>
    </message>
    <message>
        <source>activations</source>
        <translation>Aktivierungen</translation>
    </message>
    <message>
        <source>logits and loss</source>
        <translation>Logits und Verlust</translation>
    </message>
    <message>
        <source>communication buffers</source>
        <translation>Kommunikationspuffer</translation>
    </message>
    <message>
        <source>kernel workspaces</source>
        <translation>Kernel-Arbeitsspeicher</translation>
    </message>
    <message>
        <source>allocator cache</source>
        <translation>Allokator-Cache</translation>
    </message>
    <message>
        <source>CUDA context and NCCL</source>
        <translation>CUDA-Kontext und NCCL</translation>
    </message>
    <message>
        <source>%1 short by %2</source>
        <translation>%1 fehlen %2</translation>
    </message>
    <message>
        <source>Does not fit the GPU: short by %1.</source>
        <translation>Passt nicht auf die GPU: es fehlen %1.</translation>
    </message>
    <message>
        <source>Does not fit host memory: short by %1 per node.</source>
        <translation>Passt nicht in den Hostspeicher: es fehlen %1 je Knoten.</translation>
    </message>
    <message>
        <source>Lightest sharding that fits</source>
        <translation>Leichtestes Sharding, das passt</translation>
    </message>
    <message>
        <source>Full sharding, chosen by interconnect</source>
        <translation>Volles Sharding, nach Verbindung gewählt</translation>
    </message>
    <message>
        <source>CPU offload last</source>
        <translation>CPU-Auslagerung zuletzt</translation>
    </message>
    <message>
        <source>No light strategy fits the usable %1 per GPU: %2.</source>
        <translation>Keine leichte Strategie passt in die nutzbaren %1 je GPU: %2.</translation>
    </message>
    <message>
        <source>No full-sharding strategy without offload fits: %1.</source>
        <translation>Keine Strategie mit vollem Sharding ohne Auslagerung passt: %1.</translation>
    </message>
    <message>
        <source>Even with CPU offload nothing fits.</source>
        <translation>Auch mit CPU-Auslagerung passt nichts.</translation>
    </message>
    <message>
        <source>Not needed: step %1 decided.</source>
        <translation>Nicht nötig: Schritt %1 hat entschieden.</translation>
    </message>
    <message>
        <source>the recommendation</source>
        <translation>die Empfehlung</translation>
    </message>
    <message>
        <source>the decision order says to measure it as well</source>
        <translation>die Entscheidungsreihenfolge sagt, auch diese zu messen</translation>
    </message>
    <message>
        <source>checks that heavier sharding brings no speed-up</source>
        <translation>prüft, dass stärkeres Sharding nicht schneller ist</translation>
    </message>
    <message>
        <source>Recommended: %1 (decided by step %2).</source>
        <translation>Empfohlen: %1 (entschieden in Schritt %2).</translation>
    </message>
    <message>
        <source>Nothing fits. %1</source>
        <translation>Nichts passt. %1</translation>
    </message>
    <message>
        <source>%1 with torch.compile</source>
        <translation>%1 mit torch.compile</translation>
    </message>
    <message>
        <source>%1 cannot run %2: %3</source>
        <translation>%1 kann %2 nicht ausführen: %3</translation>
    </message>
    <message>
        <source>it is an FSDP2 setup; plan for PyTorch FSDP2 or torchtitan.</source>
        <translation>es ist eine FSDP2-Variante; planen Sie für PyTorch FSDP2 oder torchtitan.</translation>
    </message>
    <message>
        <source>it is a DeepSpeed ZeRO stage; plan for DeepSpeed.</source>
        <translation>es ist eine DeepSpeed-ZeRO-Stufe; planen Sie für DeepSpeed.</translation>
    </message>
    <message>
        <source>Planned for %1.</source>
        <translation>Geplant für %1.</translation>
    </message>
    <message>
        <source>predicted faster than the recommendation beyond the prediction&apos;s error</source>
        <translation>schneller vorhergesagt als die Empfehlung, über den Fehler der Vorhersage hinaus</translation>
    </message>
</context>
<context>
    <name>PredictionText</name>
    <message>
        <source>%1 %</source>
        <translation>%1 %</translation>
    </message>
    <message>
        <source>high</source>
        <translation>hoch</translation>
    </message>
    <message>
        <source>medium</source>
        <translation>mittel</translation>
    </message>
    <message>
        <source>low</source>
        <translation>niedrig</translation>
    </message>
    <message>
        <source>GPU %1: calibration from %2, confidence %3 (%4)</source>
        <translation>GPU %1: Kalibrierung aus %2, Vertrauen %3 (%4)</translation>
    </message>
    <message>
        <source>; in-sample residuals: tokens/s median %1, worst %2; peak median %3, worst %4</source>
        <translation>; In-sample-Residuen: Tokens/s Median %1, schlechtester %2; Spitze Median %3, schlechtester %4</translation>
    </message>
    <message>
        <source>fits</source>
        <translation>passt</translation>
    </message>
    <message>
        <source>does not fit</source>
        <translation>passt nicht</translation>
    </message>
    <message>
        <source>%1 (wrong)</source>
        <translation>%1 (falsch)</translation>
    </message>
</context>
<context>
    <name>QuitText</name>
    <message>
        <source>Run %1 on %2 goes on running there after Shardwise quits; re-attach it from the Runs page when you start Shardwise again.</source>
        <translation>Lauf %1 auf %2 läuft dort weiter, nachdem Shardwise beendet wurde; koppeln Sie ihn auf der Seite „Läufe“ wieder an, wenn Sie Shardwise erneut starten.</translation>
    </message>
    <message>
        <source>A run is starting on %1: quitting now may stop it before it is recorded.</source>
        <translation>Auf %1 startet gerade ein Lauf: Wenn Sie jetzt beenden, wird er möglicherweise gestoppt, bevor er gespeichert ist.</translation>
    </message>
    <message>
        <source>Run %1 on this machine is stopped and kept as cancelled.</source>
        <translation>Lauf %1 auf diesem Rechner wird gestoppt und als abgebrochen gespeichert.</translation>
    </message>
    <message>
        <source>A run is starting on this machine: quitting now stops it.</source>
        <translation>Auf diesem Rechner startet gerade ein Lauf: Wenn Sie jetzt beenden, wird er gestoppt.</translation>
    </message>
    <message>
        <source>Queued runs that will not start: %1.</source>
        <translation>Wartende Läufe, die nicht starten werden: %1.</translation>
    </message>
</context>
<context>
    <name>ReportText</name>
    <message>
        <source>decided</source>
        <translation>entschieden</translation>
    </message>
    <message>
        <source>passed</source>
        <translation>übergangen</translation>
    </message>
    <message>
        <source>not reached</source>
        <translation>nicht erreicht</translation>
    </message>
    <message>
        <source>%1 on %2 × %3 (%4)</source>
        <translation>%1 auf %2 × %3 (%4)</translation>
    </message>
    <message>
        <source>, %1 nodes</source>
        <translation>, %1 Knoten</translation>
    </message>
    <message>
        <source>Predicted peak memory per GPU: %1</source>
        <translation>Vorhergesagter Spitzenspeicher je GPU: %1</translation>
    </message>
    <message>
        <source>%1: cannot write (%2); the previous file is kept</source>
        <translation>%1: kann nicht geschrieben werden (%2); die vorherige Datei bleibt erhalten</translation>
    </message>
    <message>
        <source>Shardwise plan: %1</source>
        <translation>Shardwise-Plan: %1</translation>
    </message>
    <message>
        <source>- Framework target: %1</source>
        <translation>- Framework-Ziel: %1</translation>
    </message>
    <message>
        <source>- GPU memory %1, usable %2 after %3 headroom: what each peak is weighed against</source>
        <translation>- GPU-Speicher %1, nutzbar %2 nach %3 Reserve: damit wird jede Spitze verglichen</translation>
    </message>
    <message>
        <source>- Written %1</source>
        <translation>- Geschrieben %1</translation>
    </message>
    <message>
        <source>Recommendation</source>
        <translation>Empfehlung</translation>
    </message>
    <message>
        <source>Decision order</source>
        <translation>Entscheidungsreihenfolge</translation>
    </message>
    <message>
        <source>Candidates</source>
        <translation>Kandidaten</translation>
    </message>
    <message>
        <source>strategy</source>
        <translation>Strategie</translation>
    </message>
    <message>
        <source>fits</source>
        <translation>passt</translation>
    </message>
    <message>
        <source>peak per GPU</source>
        <translation>Spitze je GPU</translation>
    </message>
    <message>
        <source>headroom</source>
        <translation>Spielraum</translation>
    </message>
    <message>
        <source>tokens/s</source>
        <translation>Token/s</translation>
    </message>
    <message>
        <source>step time</source>
        <translation>Schrittzeit</translation>
    </message>
    <message>
        <source>note</source>
        <translation>Hinweis</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>ja</translation>
    </message>
    <message>
        <source>no</source>
        <translation>nein</translation>
    </message>
    <message>
        <source>Runs worth validating</source>
        <translation>Prüfenswerte Läufe</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>Speicher</translation>
    </message>
    <message>
        <source>The figures as numbers: [%1](%1) (bytes, seconds, tokens per second).</source>
        <translation>Die Zahlen als Werte: [%1](%1) (Bytes, Sekunden, Token pro Sekunde).</translation>
    </message>
    <message>
        <source>Target: %1; memory per GPU; tokens/s for the whole job.</source>
        <translation>Ziel: %1; Speicher je GPU; Token/s für den ganzen Job.</translation>
    </message>
    <message>
        <source>Nothing to report: the plan has no candidates yet.</source>
        <translation>Nichts zu berichten: Der Plan hat noch keine Kandidaten.</translation>
    </message>
    <message>
        <source>%1: cannot create the folder</source>
        <translation>%1: der Ordner kann nicht angelegt werden</translation>
    </message>
    <message>
        <source>Each bar stacks the parts of a strategy&apos;s peak; the dashed line is the usable capacity (%1 of %2, after %3 headroom); the star marks the recommendation, the triangle the fastest strategy that fits. Target: %4.</source>
        <translation>Jeder Balken stapelt die Teile der Spitze einer Strategie; die gestrichelte Linie ist die nutzbare Kapazität (%1 von %2, nach %3 Reserve); der Stern markiert die Empfehlung, das Dreieck die schnellste Strategie, die passt. Ziel: %4.</translation>
    </message>
</context>
<context>
    <name>RunCsvText</name>
    <message>
        <source>fp32 (CPU)</source>
        <translation>fp32 (CPU)</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>unbekannt</translation>
    </message>
    <message>
        <source>%1: cannot write (%2); the previous file is kept</source>
        <translation>%1: kann nicht geschrieben werden (%2); die vorherige Datei bleibt erhalten</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>Läufe</translation>
    </message>
    <message>
        <source>Setup</source>
        <translation>Aufbau</translation>
    </message>
    <message>
        <source>Measured</source>
        <translation>Gemessen</translation>
    </message>
    <message>
        <source>Predicted throughput</source>
        <translation>Vorhergesagter Durchsatz</translation>
    </message>
    <message>
        <source>Predicted memory</source>
        <translation>Vorhergesagter Speicher</translation>
    </message>
    <message>
        <source>%1: cannot write the caption (%2); the table was written</source>
        <translation>%1: Die Beschriftung kann nicht geschrieben werden (%2); die Tabelle wurde geschrieben</translation>
    </message>
</context>
<context>
    <name>StartupText</name>
    <message>
        <source>%1: cannot create the folder</source>
        <translation>%1: Der Ordner kann nicht angelegt werden</translation>
    </message>
    <message>
        <source>%1: cannot write the screenshot</source>
        <translation>%1: Das Bildschirmfoto kann nicht geschrieben werden</translation>
    </message>
    <message>
        <source>Plan, measure and compare training-state sharding on your own GPUs.</source>
        <translation>Sharding des Trainingszustands auf den eigenen GPUs planen, messen und vergleichen.</translation>
    </message>
    <message>
        <source>Open the run store FILE instead of the default workspace.</source>
        <translation>Den Laufspeicher DATEI statt des Standard-Arbeitsbereichs öffnen.</translation>
    </message>
    <message>
        <source>FILE</source>
        <translation>DATEI</translation>
    </message>
    <message>
        <source>Render every page to DIR/&lt;page&gt;.png and DIR/&lt;page&gt;-dark.png, then exit.</source>
        <translation>Jede Seite als DIR/&lt;Seite&gt;.png und DIR/&lt;Seite&gt;-dark.png zeichnen und beenden.</translation>
    </message>
    <message>
        <source>DIR</source>
        <translation>ORDNER</translation>
    </message>
    <message>
        <source>User interface language (en, de, ja); default: the system&apos;s.</source>
        <translation>Sprache der Oberfläche (en, de, ja); Standard: die des Systems.</translation>
    </message>
    <message>
        <source>LANG</source>
        <translation>SPRACHE</translation>
    </message>
    <message>
        <source>system, light or dark; default: the last choice in View &gt; Appearance.</source>
        <translation>system, light oder dark; Standard: die letzte Wahl unter Ansicht &gt; Erscheinungsbild.</translation>
    </message>
    <message>
        <source>SCHEME</source>
        <translation>SCHEMA</translation>
    </message>
    <message>
        <source>--color-scheme: &quot;%1&quot; is not one of system, light, dark</source>
        <translation>--color-scheme: „%1“ ist keines von system, light, dark</translation>
    </message>
    <message>
        <source>Shardwise</source>
        <translation>Shardwise</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::CandidateTableModel</name>
    <message>
        <source>%1 (recommended)</source>
        <translation>%1 (empfohlen)</translation>
    </message>
    <message>
        <source>fits</source>
        <translation>passt</translation>
    </message>
    <message>
        <source>short by %1</source>
        <translation>es fehlen %1</translation>
    </message>
    <message>
        <source>Predicted peak leaves %1 of the usable %2 free.</source>
        <translation>Die vorhergesagte Spitze lässt %1 der nutzbaren %2 frei.</translation>
    </message>
    <message>
        <source>Predicted peak exceeds the usable %1 (GPU memory minus headroom) by %2.</source>
        <translation>Die vorhergesagte Spitze übersteigt die nutzbaren %1 (GPU-Speicher minus Reserve) um %2.</translation>
    </message>
    <message>
        <source>Predicted. %1</source>
        <translation>Vorhergesagt. %1</translation>
    </message>
    <message>
        <source>Strategy</source>
        <translation>Strategie</translation>
    </message>
    <message>
        <source>Fits</source>
        <translation>Passt</translation>
    </message>
    <message>
        <source>Peak / GPU</source>
        <translation>Spitze / GPU</translation>
    </message>
    <message>
        <source>Throughput</source>
        <translation>Durchsatz</translation>
    </message>
    <message>
        <source>MFU</source>
        <translation>MFU</translation>
    </message>
    <message>
        <source>NCCL share</source>
        <translation>NCCL-Anteil</translation>
    </message>
    <message>
        <source>The sharding strategy; the recommended one is shown in bold.</source>
        <translation>Die Sharding-Strategie; die empfohlene ist fett dargestellt.</translation>
    </message>
    <message>
        <source>host RAM short by %1</source>
        <translation>Host-RAM: es fehlen %1</translation>
    </message>
    <message>
        <source>Fits the GPU, but its state in host memory, %1 per node, exceeds the usable %2 of the node&apos;s RAM by %3.</source>
        <translation>Passt auf die GPU, aber sein Zustand im Hostspeicher, %1 je Knoten, übersteigt die nutzbaren %2 des Knoten-RAMs um %3.</translation>
    </message>
    <message>
        <source>Host memory: %1 per node of the usable %2.</source>
        <translation>Hostspeicher: %1 je Knoten von nutzbaren %2.</translation>
    </message>
    <message>
        <source>Whether the predicted peak fits the GPU&apos;s memory with the planner&apos;s headroom and, for CPU offload, whether its state fits the node&apos;s usable host memory.</source>
        <translation>Ob die vorhergesagte Spitze mit der Reserve des Planers in den GPU-Speicher passt und, bei CPU-Auslagerung, ob ihr Zustand in den nutzbaren Hostspeicher des Knotens passt.</translation>
    </message>
    <message>
        <source>%1 (not in %2)</source>
        <translation>%1 (nicht in %2)</translation>
    </message>
    <message>
        <source>%1 allocated + %2 CUDA context and NCCL.</source>
        <translation>%1 belegt + %2 CUDA-Kontext und NCCL.</translation>
    </message>
    <message>
        <source>Predicted peak per GPU: the most the step allocates at once plus the CUDA context and NCCL&apos;s buffers. It fits when it is at most the usable %1 (the GPU&apos;s %2 less %3 headroom). The allocator&apos;s unused cache is not counted: PyTorch frees it before it reports out of memory.</source>
        <translation>Vorhergesagte Spitze je GPU: das Meiste, was der Schritt auf einmal belegt, plus CUDA-Kontext und NCCL-Puffer. Sie passt, wenn sie höchstens die nutzbaren %1 erreicht (die %2 der GPU abzüglich %3 Reserve). Der ungenutzte Cache des Allokators zählt nicht: PyTorch gibt ihn frei, bevor es Speichermangel meldet.</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::ChartPanel</name>
    <message>
        <source>The planner&apos;s prediction beside the measurement. Runs measured on a CPU carry no prediction: the planner predicts GPUs.</source>
        <translation>Die Vorhersage des Planers neben der Messung. Auf einer CPU gemessene Läufe haben keine Vorhersage: Der Planer sagt GPUs vorher.</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::ChecklistModel</name>
    <message>
        <source>warn</source>
        <translation>Warnung</translation>
    </message>
    <message>
        <source>check</source>
        <translation>prüfen</translation>
    </message>
    <message>
        <source>Confirm with:</source>
        <translation>Prüfen mit:</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>Preflight item</source>
        <translation>Vorabprüfung</translation>
    </message>
    <message>
        <source>planned</source>
        <translation>geplant</translation>
    </message>
    <message>
        <source>Planned: the prepared commands take care of this when you run them; nothing has been created or checked yet.</source>
        <translation>Geplant: Die vorbereiteten Befehle erledigen dies, wenn Sie sie ausführen; noch ist nichts angelegt oder geprüft.</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::CloudPage</name>
    <message>
        <source>&amp;Region:</source>
        <translation>&amp;Region:</translation>
    </message>
    <message>
        <source>Google Cloud regions with at least one zone that lists the plan&apos;s GPU (from the dated GKE table; the gcloud commands confirm it live)</source>
        <translation>Google-Cloud-Regionen mit mindestens einer Zone, die die GPU des Plans anbietet (aus der datierten GKE-Tabelle; die gcloud-Befehle prüfen es live)</translation>
    </message>
    <message>
        <source>Use current plan</source>
        <translation>Aktuellen Plan übernehmen</translation>
    </message>
    <message>
        <source>Read the plan the Plan page shows now: model, GPU, GPUs per node, nodes and training</source>
        <translation>Den Plan übernehmen, den die Seite „Plan“ gerade zeigt: Modell, GPU, GPUs pro Knoten, Knoten und Training</translation>
    </message>
    <message>
        <source>Preflight checklist: pass = the commands below take care of it, warn = a risk they cannot remove, check = confirm it in your project first. Hover a row for the reason and the command that confirms it.</source>
        <translation>Vorab-Checkliste: erfüllt = die Befehle unten erledigen es, Warnung = ein Risiko, das sie nicht beseitigen können, prüfen = zuerst in Ihrem Projekt bestätigen. Zeigen Sie auf eine Zeile, um die Begründung und den bestätigenden Befehl zu sehen.</translation>
    </message>
    <message>
        <source>gcloud commands</source>
        <translation>gcloud-Befehle</translation>
    </message>
    <message>
        <source>kubectl commands</source>
        <translation>kubectl-Befehle</translation>
    </message>
    <message>
        <source>Job manifest</source>
        <translation>Job-Manifest</translation>
    </message>
    <message>
        <source>Quota, zone and version checks, then the regional cluster and the GPU node pool</source>
        <translation>Kontingent-, Zonen- und Versionsprüfungen, dann der regionale Cluster und der GPU-Knotenpool</translation>
    </message>
    <message>
        <source>Credentials, starting the Job, watching nodes and pods, logs, clean-up</source>
        <translation>Zugangsdaten, Job starten, Knoten und Pods beobachten, Logs, Aufräumen</translation>
    </message>
    <message>
        <source>A headless Service and an Indexed Job running shardwise-runner on every planned GPU</source>
        <translation>Ein headless Service und ein Indexed Job, der shardwise-runner auf jeder geplanten GPU ausführt</translation>
    </message>
    <message>
        <source>&amp;Copy</source>
        <translation>&amp;Kopieren</translation>
    </message>
    <message>
        <source>Copy the visible commands or manifest to the clipboard</source>
        <translation>Die sichtbaren Befehle oder das Manifest in die Zwischenablage kopieren</translation>
    </message>
    <message>
        <source>&amp;Save…</source>
        <translation>&amp;Speichern…</translation>
    </message>
    <message>
        <source>Save the visible commands or manifest to a file</source>
        <translation>Die sichtbaren Befehle oder das Manifest in eine Datei speichern</translation>
    </message>
    <message>
        <source>Plan: %1 on %2 × %3 (%4 node(s) × %5 GPU(s)), %6</source>
        <translation>Plan: %1 auf %2 × %3 (%4 Knoten × %5 GPU(s)), %6</translation>
    </message>
    <message>
        <source>strategy %1 (the plan&apos;s recommendation)</source>
        <translation>Strategie %1 (Empfehlung des Plans)</translation>
    </message>
    <message>
        <source>no strategy fits</source>
        <translation>keine Strategie passt</translation>
    </message>
    <message>
        <source>Plan: not valid</source>
        <translation>Plan: ungültig</translation>
    </message>
    <message>
        <source>The plan cannot be read: %1</source>
        <translation>Der Plan kann nicht gelesen werden: %1</translation>
    </message>
    <message>
        <source>%1 offers no zone with this plan&apos;s GPU; pick one of the listed regions.</source>
        <translation>%1 bietet keine Zone mit der GPU dieses Plans; wählen Sie eine der aufgeführten Regionen.</translation>
    </message>
    <message>
        <source>%1: cannot write the file (%2); the previous file is kept</source>
        <translation>%1: Datei kann nicht geschrieben werden (%2); die bisherige Datei bleibt erhalten</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>Speichern</translation>
    </message>
    <message>
        <source>YAML (*.yaml *.yml)</source>
        <translation>YAML (*.yaml *.yml)</translation>
    </message>
    <message>
        <source>Shell script (*.sh)</source>
        <translation>Shell-Skript (*.sh)</translation>
    </message>
    <message>
        <source>S&amp;trategy:</source>
        <translation>S&amp;trategie:</translation>
    </message>
    <message>
        <source>The sharding strategy the Job runs: the plan&apos;s recommendation, or another to measure it on the same nodes</source>
        <translation>Die Sharding-Strategie, die der Job ausführt: die Empfehlung des Plans oder eine andere, um sie auf denselben Knoten zu messen</translation>
    </message>
    <message>
        <source>%1 (recommended)</source>
        <translation>%1 (empfohlen)</translation>
    </message>
    <message>
        <source>%1 (does not fit)</source>
        <translation>%1 (passt nicht)</translation>
    </message>
    <message>
        <source>No strategy fits this plan, so there is nothing to deploy. Change the plan on the Plan page, or pick a strategy to prepare it anyway.</source>
        <translation>Keine Strategie passt zu diesem Plan, es gibt also nichts bereitzustellen. Ändern Sie den Plan auf der Seite „Plan“ oder wählen Sie eine Strategie, um sie trotzdem vorzubereiten.</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::ComparePage</name>
    <message>
        <source>any</source>
        <translation>alle</translation>
    </message>
    <message>
        <source>Show only runs of this model.</source>
        <translation>Nur Läufe dieses Modells zeigen.</translation>
    </message>
    <message>
        <source>Show only runs on this hardware.</source>
        <translation>Nur Läufe auf dieser Hardware zeigen.</translation>
    </message>
    <message>
        <source>Show only runs of this strategy.</source>
        <translation>Nur Läufe dieser Strategie zeigen.</translation>
    </message>
    <message>
        <source>Show only runs on this node.</source>
        <translation>Nur Läufe auf diesem Knoten zeigen.</translation>
    </message>
    <message>
        <source>Started between</source>
        <translation>Gestartet zwischen</translation>
    </message>
    <message>
        <source>Show only runs started in this date range (inclusive).</source>
        <translation>Nur Läufe zeigen, die in diesem Zeitraum (einschließlich) gestartet wurden.</translation>
    </message>
    <message>
        <source>Model:</source>
        <translation>Modell:</translation>
    </message>
    <message>
        <source>Hardware:</source>
        <translation>Hardware:</translation>
    </message>
    <message>
        <source>Strategy:</source>
        <translation>Strategie:</translation>
    </message>
    <message>
        <source>Node:</source>
        <translation>Knoten:</translation>
    </message>
    <message>
        <source>and</source>
        <translation>und</translation>
    </message>
    <message>
        <source>Check all shown</source>
        <translation>Alle angezeigten anhaken</translation>
    </message>
    <message>
        <source>Put every run the filters show into the charts.</source>
        <translation>Alle Läufe, die die Filter zeigen, in die Diagramme aufnehmen.</translation>
    </message>
    <message>
        <source>Uncheck all</source>
        <translation>Alle abwählen</translation>
    </message>
    <message>
        <source>Export &amp;charts…</source>
        <translation>Dia&amp;gramme exportieren…</translation>
    </message>
    <message>
        <source>Save the four charts as PNG, SVG or PDF with a caption (%1).</source>
        <translation>Die vier Diagramme mit Beschriftung als PNG, SVG oder PDF speichern (%1).</translation>
    </message>
    <message>
        <source>Export &amp;table…</source>
        <translation>&amp;Tabelle exportieren…</translation>
    </message>
    <message>
        <source>Save the checked runs as CSV or Markdown with a caption (%1).</source>
        <translation>Die angehakten Läufe mit Beschriftung als CSV oder Markdown speichern (%1).</translation>
    </message>
    <message>
        <source>&amp;Reload</source>
        <translation>&amp;Neu laden</translation>
    </message>
    <message>
        <source>Read the runs from the workspace again (%1).</source>
        <translation>Die Läufe erneut aus dem Arbeitsbereich lesen (%1).</translation>
    </message>
    <message>
        <source>Export charts</source>
        <translation>Diagramme exportieren</translation>
    </message>
    <message>
        <source>PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)</source>
        <translation>PNG-Bild (*.png);;SVG-Zeichnung (*.svg);;PDF-Dokument (*.pdf)</translation>
    </message>
    <message>
        <source>Export table</source>
        <translation>Tabelle exportieren</translation>
    </message>
    <message>
        <source>CSV table (*.csv);;Markdown table (*.md)</source>
        <translation>CSV-Tabelle (*.csv);;Markdown-Tabelle (*.md)</translation>
    </message>
    <message>
        <source>Export &amp;prediction chart…</source>
        <translation>&amp;Vorhersagediagramm exportieren…</translation>
    </message>
    <message>
        <source>Save the measured-vs-predicted chart as PNG, SVG or PDF with a caption naming the calibration.</source>
        <translation>Das Diagramm „gemessen vs. vorhergesagt“ als PNG, SVG oder PDF speichern, mit einer Bildunterschrift, die die Kalibrierung nennt.</translation>
    </message>
    <message>
        <source>The calibration behind the &quot;Calibrated&quot; columns, per GPU type shown: fitted to the store&apos;s newest probe of a node with that GPU and to its finished runs. Its residuals are in-sample: they show what calibration explains, not how it predicts a new run.</source>
        <translation>Die Kalibrierung hinter den Spalten „Kalibriert“, je angezeigtem GPU-Typ: angepasst an die neueste gespeicherte Messung eines Knotens mit dieser GPU und an dessen abgeschlossene Läufe. Ihre Residuen sind in-sample: Sie zeigen, was die Kalibrierung erklärt, nicht wie gut sie einen neuen Lauf vorhersagt.</translation>
    </message>
    <message>
        <source>Measured tokens/s of each checked run beside the presets&apos; and the calibrated prediction. The calibrated prediction is fitted to these runs (in-sample).</source>
        <translation>Gemessene Tokens/s jedes markierten Laufs neben der Vorhersage der Presets und der kalibrierten Vorhersage. Die kalibrierte Vorhersage ist an diese Läufe angepasst (in-sample).</translation>
    </message>
    <message>
        <source>no run store is open</source>
        <translation>kein Laufspeicher ist geöffnet</translation>
    </message>
    <message>
        <source>Calibrating from the run store…</source>
        <translation>Kalibrierung aus dem Laufspeicher…</translation>
    </message>
    <message>
        <source>Predictions unavailable: %1</source>
        <translation>Vorhersagen nicht verfügbar: %1</translation>
    </message>
    <message>
        <source>No measurements to compare with predictions: the store holds no completed or out-of-memory GPU run with its configuration. Validate a plan on a GPU node, or import measured runs, and they appear here with their predictions.</source>
        <translation>Keine Messungen, mit denen Vorhersagen verglichen werden können: Der Speicher enthält keinen abgeschlossenen oder an Speichermangel gescheiterten GPU-Lauf mit seiner Konfiguration. Validieren Sie einen Plan auf einem GPU-Knoten oder importieren Sie gemessene Läufe, dann erscheinen sie hier mit ihren Vorhersagen.</translation>
    </message>
    <message>
        <source>None of the runs shown has a prediction: only completed or out-of-memory runs on a known GPU preset are predicted.</source>
        <translation>Keiner der angezeigten Läufe hat eine Vorhersage: Vorhergesagt werden nur abgeschlossene oder an Speichermangel gescheiterte Läufe auf einem bekannten GPU-Preset.</translation>
    </message>
    <message>
        <source>Export prediction chart</source>
        <translation>Vorhersagediagramm exportieren</translation>
    </message>
    <message>
        <source>Show only runs of this backend: native (Shardwise&apos;s runner) or torch (PyTorch).</source>
        <translation>Nur Läufe dieses Backends zeigen: native (Shardwise&apos; Runner) oder torch (PyTorch).</translation>
    </message>
    <message>
        <source>Backend:</source>
        <translation>Backend:</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::DecisionStepModel</name>
    <message>
        <source>decided</source>
        <translation>entschieden</translation>
    </message>
    <message>
        <source>passed on</source>
        <translation>weitergereicht</translation>
    </message>
    <message>
        <source>not reached</source>
        <translation>nicht erreicht</translation>
    </message>
    <message>
        <source>%1. %2</source>
        <translation>%1. %2</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>Schritt</translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation>Urteil</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>Begründung</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::HelpViewer</name>
    <message>
        <source>Shardwise user guide</source>
        <translation>Shardwise-Benutzerhandbuch</translation>
    </message>
    <message>
        <source>The user guide is missing from this installation (share/doc/shardwise/user-guide.md).</source>
        <translation>Das Benutzerhandbuch fehlt in dieser Installation (share/doc/shardwise/user-guide.md).</translation>
    </message>
    <message>
        <source>Back</source>
        <translation>Zurück</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::HostKeyTrustDialog</name>
    <message>
        <source>Host key changed</source>
        <translation>Hostschlüssel geändert</translation>
    </message>
    <message>
        <source>Trust this host key?</source>
        <translation>Diesem Hostschlüssel vertrauen?</translation>
    </message>
    <message>
        <source>The node &quot;%1&quot; (%2) presented a host key different from the one recorded for it. This can mean that someone intercepts the connection, or that the machine was reinstalled. Shardwise refuses to connect. If the change is expected, remove the old key from the known_hosts file and add the node again.</source>
        <translation>Der Knoten „%1“ (%2) hat einen anderen Hostschlüssel vorgelegt als den für ihn gespeicherten. Das kann bedeuten, dass jemand die Verbindung abfängt, oder dass der Rechner neu installiert wurde. Shardwise verweigert die Verbindung. Ist die Änderung erwartet, entfernen Sie den alten Schlüssel aus der known_hosts-Datei und fügen Sie den Knoten erneut hinzu.</translation>
    </message>
    <message>
        <source>The authenticity of the node &quot;%1&quot; (%2) cannot be established: its host key is in no known_hosts file. Compare the fingerprint below with the one `ssh-keygen -lf` prints for the host key on the node itself, and trust it only if they match.</source>
        <translation>Die Echtheit des Knotens „%1“ (%2) kann nicht festgestellt werden: Sein Hostschlüssel steht in keiner known_hosts-Datei. Vergleichen Sie den Fingerabdruck unten mit dem, den `ssh-keygen -lf` für den Hostschlüssel auf dem Knoten selbst ausgibt, und vertrauen Sie ihm nur, wenn sie übereinstimmen.</translation>
    </message>
    <message>
        <source>Host:</source>
        <translation>Host:</translation>
    </message>
    <message>
        <source>Key type:</source>
        <translation>Schlüsseltyp:</translation>
    </message>
    <message>
        <source>Fingerprint:</source>
        <extracomment>the SHA-256 fingerprint of an SSH host key, as ssh-keygen -l prints it</extracomment>
        <translation>Fingerabdruck:</translation>
    </message>
    <message>
        <source>&amp;Trust and connect</source>
        <translation>&amp;Vertrauen und verbinden</translation>
    </message>
    <message>
        <source>&amp;Do not trust</source>
        <translation>&amp;Nicht vertrauen</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::LogTailModel</name>
    <message>
        <source>[rank %1] %2</source>
        <extracomment>one log line: the rank that wrote it, then the text</extracomment>
        <translation>[Rang %1] %2</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::MainWindow</name>
    <message>
        <source>Shardwise</source>
        <translation>Shardwise</translation>
    </message>
    <message>
        <source>Pages</source>
        <translation>Seiten</translation>
    </message>
    <message>
        <source>Workspace: %1</source>
        <translation>Arbeitsbereich: %1</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Datei</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Beenden</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>&amp;Ansicht</translation>
    </message>
    <message>
        <source>&amp;Appearance</source>
        <translation>&amp;Erscheinungsbild</translation>
    </message>
    <message>
        <source>Follow the &amp;system</source>
        <translation>Dem &amp;System folgen</translation>
    </message>
    <message>
        <source>&amp;Light</source>
        <translation>&amp;Hell</translation>
    </message>
    <message>
        <source>&amp;Dark</source>
        <translation>&amp;Dunkel</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>&amp;Hilfe</translation>
    </message>
    <message>
        <source>User &amp;guide</source>
        <translation>&amp;Benutzerhandbuch</translation>
    </message>
    <message>
        <source>&amp;About Shardwise</source>
        <translation>Ü&amp;ber Shardwise</translation>
    </message>
    <message>
        <source>About Shardwise</source>
        <translation>Über Shardwise</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;Shardwise %1&lt;/b&gt;&lt;/p&gt;&lt;p&gt;Plan, measure and compare training-state sharding (ZeRO 0-3, ZeRO-3 offload, FSDP2) on your own GPUs.&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;Shardwise %1&lt;/b&gt;&lt;/p&gt;&lt;p&gt;Sharding des Trainingszustands (ZeRO 0-3, ZeRO-3 mit Auslagerung, FSDP2) auf den eigenen GPUs planen, messen und vergleichen.&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Quit Shardwise</source>
        <translation>Shardwise beenden</translation>
    </message>
    <message>
        <source>&amp;Keep Shardwise open</source>
        <translation>Shardwise &amp;geöffnet lassen</translation>
    </message>
    <message>
        <source>Qwen2.5 7B on one node of 8 × H100 80GB (NVLink), sequence 4096</source>
        <translation>Qwen2.5 7B auf einem Knoten mit 8 × H100 80GB (NVLink), Sequenz 4096</translation>
    </message>
    <message>
        <source>Try it here: tiny decoder, 2 ranks, validated on this machine&apos;s CPU</source>
        <translation>Hier ausprobieren: kleiner Decoder, 2 Ränge, auf der CPU dieses Rechners geprüft</translation>
    </message>
    <message>
        <source>Reference: Qwen2.5 3B on one node of 4 × L4 (PCIe)</source>
        <translation>Referenz: Qwen2.5 3B auf einem Knoten mit 4 × L4 (PCIe)</translation>
    </message>
    <message>
        <source>Open &amp;example</source>
        <translation>Beispiel ö&amp;ffnen</translation>
    </message>
    <message>
        <source>&amp;Import runs…</source>
        <translation>Läufe &amp;importieren…</translation>
    </message>
    <message>
        <source>Store runs measured elsewhere from a CSV or JSON export (shardwise-cli runs export).</source>
        <translation>Anderswo gemessene Läufe aus einem CSV- oder JSON-Export speichern (shardwise-cli runs export).</translation>
    </message>
    <message>
        <source>Example: %1</source>
        <translation>Beispiel: %1</translation>
    </message>
    <message>
        <source>Import runs</source>
        <translation>Läufe importieren</translation>
    </message>
    <message>
        <source>Run exports (*.csv *.json);;All files (*)</source>
        <translation>Lauf-Exporte (*.csv *.json);;Alle Dateien (*)</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::NodeFactsModel</name>
    <message>
        <source>not found</source>
        <translation>nicht gefunden</translation>
    </message>
    <message>
        <source>Host name</source>
        <translation>Hostname</translation>
    </message>
    <message>
        <source>Operating system</source>
        <translation>Betriebssystem</translation>
    </message>
    <message>
        <source>Architecture</source>
        <translation>Architektur</translation>
    </message>
    <message>
        <source>CPU cores</source>
        <translation>CPU-Kerne</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>Speicher</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPUs</translation>
    </message>
    <message>
        <source>none: only the CPU runner can run here</source>
        <translation>keine: hier kann nur der CPU-Runner laufen</translation>
    </message>
    <message>
        <source>GPU %1</source>
        <translation>GPU %1</translation>
    </message>
    <message>
        <source>%1, %2 (%3)</source>
        <translation>%1, %2 (%3)</translation>
    </message>
    <message>
        <source>NVIDIA driver</source>
        <translation>NVIDIA-Treiber</translation>
    </message>
    <message>
        <source>CUDA supported by the driver</source>
        <translation>Vom Treiber unterstütztes CUDA</translation>
    </message>
    <message>
        <source>CUDA toolkit</source>
        <translation>CUDA-Toolkit</translation>
    </message>
    <message>
        <source>NCCL</source>
        <translation>NCCL</translation>
    </message>
    <message>
        <source>Python</source>
        <translation>Python</translation>
    </message>
    <message>
        <source>PyTorch</source>
        <translation>PyTorch</translation>
    </message>
    <message>
        <source>PyTorch&apos;s CUDA</source>
        <translation>CUDA von PyTorch</translation>
    </message>
    <message>
        <source>LibTorch CMake folder</source>
        <translation>LibTorch-CMake-Ordner</translation>
    </message>
    <message>
        <source>CMake</source>
        <translation>CMake</translation>
    </message>
    <message>
        <source>C++ compiler</source>
        <translation>C++-Compiler</translation>
    </message>
    <message>
        <source>Can build the runner</source>
        <translation>Kann den Runner bauen</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>ja</translation>
    </message>
    <message>
        <source>no</source>
        <translation>nein</translation>
    </message>
    <message>
        <source>Problem</source>
        <translation>Problem</translation>
    </message>
    <message>
        <source>Property</source>
        <translation>Eigenschaft</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>Wert</translation>
    </message>
    <message>
        <source>Matmul rate (bf16)</source>
        <translation>Matmul-Rate (bf16)</translation>
    </message>
    <message>
        <source>Matmul rate (fp32)</source>
        <translation>Matmul-Rate (fp32)</translation>
    </message>
    <message>
        <source>Device copy bandwidth</source>
        <translation>Kopierbandbreite auf dem Gerät</translation>
    </message>
    <message>
        <source>Host to device (pinned)</source>
        <translation>Host zu Gerät (gepinnt)</translation>
    </message>
    <message>
        <source>Device to host (pinned)</source>
        <translation>Gerät zu Host (gepinnt)</translation>
    </message>
    <message>
        <source>CPU AdamW rate</source>
        <translation>CPU-AdamW-Rate</translation>
    </message>
    <message>
        <source>All-gather bus bandwidth</source>
        <translation>All-Gather-Busbandbreite</translation>
    </message>
    <message>
        <source>Reduce-scatter bus bandwidth</source>
        <translation>Reduce-Scatter-Busbandbreite</translation>
    </message>
    <message>
        <source>All-reduce bus bandwidth</source>
        <translation>All-Reduce-Busbandbreite</translation>
    </message>
    <message>
        <source>%1 M parameters/s</source>
        <translation>%1 Mio. Parameter/s</translation>
    </message>
    <message>
        <source>%1 at %2</source>
        <translation>%1 bei %2</translation>
    </message>
    <message>
        <source>Probed</source>
        <translation>Gemessen</translation>
    </message>
    <message>
        <source>%1, %2 (rank %3 of %4)</source>
        <translation>%1, %2 (Rang %3 von %4)</translation>
    </message>
    <message>
        <source>PyTorch for python3</source>
        <translation>PyTorch für python3</translation>
    </message>
    <message>
        <source>Transformers</source>
        <translation>Transformers</translation>
    </message>
    <message>
        <source>not installed: the torch backend trains its plain PyTorch decoder</source>
        <translation>nicht installiert: Das torch-Backend trainiert seinen reinen PyTorch-Decoder</translation>
    </message>
    <message>
        <source>Can run the torch backend</source>
        <translation>Kann das torch-Backend ausführen</translation>
    </message>
    <message>
        <source>Missing for torch</source>
        <translation>Fehlt für torch</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::NodeJob</name>
    <message>
        <source>This machine needs no connection.</source>
        <translation>Dieser Rechner braucht keine Verbindung.</translation>
    </message>
    <message>
        <source>Connected as %1 in %2 ms; the node runs %3.</source>
        <translation>Als %1 in %2 ms verbunden; auf dem Knoten läuft %3.</translation>
    </message>
    <message>
        <source>Connected as %1 in %2 ms, but a test command ended with %3.</source>
        <translation>Als %1 in %2 ms verbunden, aber ein Testbefehl endete mit %3.</translation>
    </message>
    <message>
        <source>This machine runs the runner installed beside Shardwise; only SSH nodes are prepared.</source>
        <translation>Dieser Rechner verwendet den neben Shardwise installierten Runner; vorbereitet werden nur SSH-Knoten.</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::NodeTableModel</name>
    <message>
        <source>This machine</source>
        <translation>Dieser Rechner</translation>
    </message>
    <message>
        <source>SSH</source>
        <translation>SSH</translation>
    </message>
    <message>
        <source>Not discovered yet</source>
        <translation>Noch nicht erkundet</translation>
    </message>
    <message>
        <source>No GPU (CPU runner only)</source>
        <translation>Keine GPU (nur CPU-Runner)</translation>
    </message>
    <message>
        <source>%1 × %2, %3 each</source>
        <extracomment>e.g. &quot;2 × NVIDIA H200, 141.0 GiB each&quot;</extracomment>
        <translation>%1 × %2, je %3</translation>
    </message>
    <message>
        <source>driver %1</source>
        <translation>Treiber %1</translation>
    </message>
    <message>
        <source>CUDA %1</source>
        <translation>CUDA %1</translation>
    </message>
    <message>
        <source>NCCL %1</source>
        <translation>NCCL %1</translation>
    </message>
    <message>
        <source>PyTorch %1</source>
        <translation>PyTorch %1</translation>
    </message>
    <message>
        <source>CMake %1</source>
        <translation>CMake %1</translation>
    </message>
    <message>
        <source>Not accepted yet</source>
        <translation>Noch nicht akzeptiert</translation>
    </message>
    <message>
        <source>The SHA256 fingerprint of the host key you accepted; a different key is always refused.</source>
        <translation>Der SHA256-Fingerabdruck des akzeptierten Hostschlüssels; ein anderer Schlüssel wird immer abgelehnt.</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>Art</translation>
    </message>
    <message>
        <source>Address</source>
        <translation>Adresse</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPUs</translation>
    </message>
    <message>
        <source>Software</source>
        <translation>Software</translation>
    </message>
    <message>
        <source>Host key</source>
        <translation>Hostschlüssel</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::NodesPage</name>
    <message>
        <source>&amp;NCCL settings…</source>
        <translation>&amp;NCCL-Einstellungen…</translation>
    </message>
    <message>
        <source>Environment variables for NCCL that the node&apos;s runs get, e.g. NCCL_NVLS_ENABLE=0 where NVLink multicast is forbidden; none by default.</source>
        <translation>Umgebungsvariablen für NCCL, die die Läufe des Knotens erhalten, z. B. NCCL_NVLS_ENABLE=0, wo NVLink-Multicast verboten ist; standardmäßig keine.</translation>
    </message>
    <message>
        <source>The NCCL settings of %1 were not changed: %2</source>
        <translation>Die NCCL-Einstellungen von %1 wurden nicht geändert: %2</translation>
    </message>
    <message>
        <source>%1: runs give its ranks %2.</source>
        <translation>%1: Läufe geben seinen Rängen %2.</translation>
    </message>
    <message>
        <source>%1: no NCCL settings; NCCL chooses its defaults.</source>
        <translation>%1: keine NCCL-Einstellungen; NCCL wählt seine Standardwerte.</translation>
    </message>
    <message>
        <source>NCCL settings of %1</source>
        <translation>NCCL-Einstellungen von %1</translation>
    </message>
    <message>
        <source>One NAME=VALUE per line, given to every rank this node runs (e.g. NCCL_NVLS_ENABLE=0 where NVLink multicast is forbidden). Empty: none.</source>
        <translation>Ein NAME=WERT pro Zeile, an jeden Rang übergeben, den dieser Knoten ausführt (z. B. NCCL_NVLS_ENABLE=0, wo NVLink-Multicast verboten ist). Leer: keine.</translation>
    </message>
    <message>
        <source>Add &amp;this machine</source>
        <translation>Diesen &amp;Rechner hinzufügen</translation>
    </message>
    <message>
        <source>Adds this machine as the node &quot;local&quot; and discovers its facts.</source>
        <translation>Fügt diesen Rechner als Knoten „local“ hinzu und erkundet seine Fakten.</translation>
    </message>
    <message>
        <source>Add &amp;SSH node…</source>
        <translation>&amp;SSH-Knoten hinzufügen…</translation>
    </message>
    <message>
        <source>Adds a machine reached over SSH.</source>
        <translation>Fügt einen per SSH erreichbaren Rechner hinzu.</translation>
    </message>
    <message>
        <source>&amp;Remove</source>
        <translation>&amp;Entfernen</translation>
    </message>
    <message>
        <source>Removes the node; runs measured on it keep its name.</source>
        <translation>Entfernt den Knoten; darauf gemessene Läufe behalten seinen Namen.</translation>
    </message>
    <message>
        <source>Test &amp;connection</source>
        <translation>Verbindung &amp;testen</translation>
    </message>
    <message>
        <source>Connects, checks the host key and runs one command.</source>
        <translation>Verbindet, prüft den Hostschlüssel und führt einen Befehl aus.</translation>
    </message>
    <message>
        <source>&amp;Discover facts</source>
        <translation>&amp;Fakten erkunden</translation>
    </message>
    <message>
        <source>Finds the GPUs, driver, CUDA, NCCL, LibTorch and build tools on the node.</source>
        <translation>Findet GPUs, Treiber, CUDA, NCCL, LibTorch und Build-Werkzeuge auf dem Knoten.</translation>
    </message>
    <message>
        <source>&amp;Prepare</source>
        <translation>&amp;Vorbereiten</translation>
    </message>
    <message>
        <source>Facts of the selected node</source>
        <translation>Fakten des ausgewählten Knotens</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>The nodes could not be read: %1</source>
        <translation>Die Knoten konnten nicht gelesen werden: %1</translation>
    </message>
    <message>
        <source>This machine could not be added: %1</source>
        <translation>Dieser Rechner konnte nicht hinzugefügt werden: %1</translation>
    </message>
    <message>
        <source>Added %1; connecting…</source>
        <translation>%1 hinzugefügt; verbinde…</translation>
    </message>
    <message>
        <source>The node could not be added: %1</source>
        <translation>Der Knoten konnte nicht hinzugefügt werden: %1</translation>
    </message>
    <message>
        <source>The node could not be removed: %1</source>
        <translation>Der Knoten konnte nicht entfernt werden: %1</translation>
    </message>
    <message>
        <source>Connecting to %1…</source>
        <translation>Verbinde mit %1…</translation>
    </message>
    <message>
        <source>Discovering the facts of %1…</source>
        <translation>Erkunde die Fakten von %1…</translation>
    </message>
    <message>
        <source>The facts could not be stored: %1</source>
        <translation>Die Fakten konnten nicht gespeichert werden: %1</translation>
    </message>
    <message numerus="yes">
        <source>%1: %n GPU(s) found.</source>
        <translation>
            <numerusform>%1: %n GPU gefunden.</numerusform>
            <numerusform>%1: %n GPUs gefunden.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1: %n GPU(s) found; the runner cannot be built there yet (see the problems below).</source>
        <translation>
            <numerusform>%1: %n GPU gefunden; der Runner kann dort noch nicht gebaut werden (siehe Probleme unten).</numerusform>
            <numerusform>%1: %n GPUs gefunden; der Runner kann dort noch nicht gebaut werden (siehe Probleme unten).</numerusform>
        </translation>
    </message>
    <message>
        <source>%1: the host key was not trusted, so Shardwise did not log in.</source>
        <translation>%1: Dem Hostschlüssel wurde nicht vertraut, daher hat sich Shardwise nicht angemeldet.</translation>
    </message>
    <message>
        <source>%1: the host key could not be recorded: %2</source>
        <translation>%1: Der Hostschlüssel konnte nicht gespeichert werden: %2</translation>
    </message>
    <message>
        <source>Uploads the runner&apos;s sources to the SSH node and builds them there against its LibTorch; an unchanged runner is not built again.</source>
        <translation>Lädt die Quellen des Runners auf den SSH-Knoten hoch und baut sie dort gegen dessen LibTorch; ein unveränderter Runner wird nicht erneut gebaut.</translation>
    </message>
    <message>
        <source>Cancel pr&amp;eparation</source>
        <translation>Vorbereitung a&amp;bbrechen</translation>
    </message>
    <message>
        <source>Stops the upload or the build on the node.</source>
        <translation>Stoppt das Hochladen oder den Build auf dem Knoten.</translation>
    </message>
    <message>
        <source>%1: %p%</source>
        <translation>%1: %p %</translation>
    </message>
    <message>
        <source>Cancelling the preparation…</source>
        <translation>Vorbereitung wird abgebrochen…</translation>
    </message>
    <message>
        <source>%1 was prepared, but the store did not take it: %2</source>
        <translation>%1 wurde vorbereitet, aber der Speicher hat es nicht übernommen: %2</translation>
    </message>
    <message>
        <source>%1 is prepared: the runner was already built at %2.</source>
        <translation>%1 ist vorbereitet: Der Runner war bereits unter %2 gebaut.</translation>
    </message>
    <message>
        <source>%1 is prepared: the runner was built at %2.</source>
        <translation>%1 ist vorbereitet: Der Runner wurde unter %2 gebaut.</translation>
    </message>
    <message>
        <source>%p%</source>
        <translation>%p %</translation>
    </message>
    <message>
        <source>Preparing %1…</source>
        <translation>%1 wird vorbereitet…</translation>
    </message>
    <message>
        <source>Pro&amp;be</source>
        <translation>&amp;Messen</translation>
    </message>
    <message>
        <source>Measures the node&apos;s matmul rate, copy bandwidths, CPU AdamW rate and, with several GPUs, collective bandwidths with the runner, and stores them for calibrated plans.</source>
        <translation>Misst mit dem Runner die Matmul-Rate, die Kopierbandbreiten, die CPU-AdamW-Rate und, bei mehreren GPUs, die Bandbreiten der kollektiven Operationen des Knotens und speichert sie für kalibrierte Pläne.</translation>
    </message>
    <message>
        <source>Stops the probe&apos;s runner processes on the node.</source>
        <translation>Beendet die Runner-Prozesse der Messung auf dem Knoten.</translation>
    </message>
    <message>
        <source>The probes of %1 could not be read: %2</source>
        <translation>Die Messungen von %1 konnten nicht gelesen werden: %2</translation>
    </message>
    <message numerus="yes">
        <source>Probing %1: %n rank(s) on %2…</source>
        <translation>
            <numerusform>Messe %1: %n Rang auf %2…</numerusform>
            <numerusform>Messe %1: %n Ränge auf %2…</numerusform>
        </translation>
    </message>
    <message>
        <source>Cancelling the probe…</source>
        <translation>Messung wird abgebrochen…</translation>
    </message>
    <message>
        <source>The probe of %1 was cancelled; nothing was stored.</source>
        <translation>Die Messung von %1 wurde abgebrochen; nichts wurde gespeichert.</translation>
    </message>
    <message>
        <source>The probe of %1 failed: %2</source>
        <translation>Die Messung von %1 ist fehlgeschlagen: %2</translation>
    </message>
    <message numerus="yes">
        <source>%1 probed: %n rank(s) measured and stored.</source>
        <translation>
            <numerusform>%1 gemessen: %n Rang gemessen und gespeichert.</numerusform>
            <numerusform>%1 gemessen: %n Ränge gemessen und gespeichert.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 probed: %n rank(s) measured and stored; calibrated plans for %2 start from this probe.</source>
        <translation>
            <numerusform>%1 gemessen: %n Rang gemessen und gespeichert; kalibrierte Pläne für %2 gehen von dieser Messung aus.</numerusform>
            <numerusform>%1 gemessen: %n Ränge gemessen und gespeichert; kalibrierte Pläne für %2 gehen von dieser Messung aus.</numerusform>
        </translation>
    </message>
    <message>
        <source>Cance&amp;l probe</source>
        <translation>Messung abbre&amp;chen</translation>
    </message>
    <message>
        <source>The torch backend can run there (%1).</source>
        <translation>Das torch-Backend kann dort laufen (%1).</translation>
    </message>
    <message>
        <source>The torch backend cannot run there: %1.</source>
        <translation>Das torch-Backend kann dort nicht laufen: %1.</translation>
    </message>
    <message>
        <source>Probe net&amp;work…</source>
        <translation>Netz&amp;werk messen…</translation>
    </message>
    <message>
        <source>Measures the network between the selected SSH node and another: one probe over every GPU of both, whose collectives cross the network. The Plan page offers the result as an inter-node network.</source>
        <translation>Misst das Netzwerk zwischen dem gewählten SSH-Knoten und einem weiteren: eine Messung über jede GPU beider Knoten, deren kollektive Operationen das Netzwerk überqueren. Die Seite „Planen“ bietet das Ergebnis als Netzwerk zwischen Knoten an.</translation>
    </message>
    <message>
        <source>Probe network</source>
        <translation>Netzwerk messen</translation>
    </message>
    <message>
        <source>Measure the network between the selected node and:</source>
        <translation>Das Netzwerk messen zwischen dem gewählten Knoten und:</translation>
    </message>
    <message>
        <source>Select an SSH node to probe the network from.</source>
        <translation>Wählen Sie einen SSH-Knoten, von dem aus das Netzwerk gemessen wird.</translation>
    </message>
    <message>
        <source>%1 is not another SSH node of this workspace.</source>
        <translation>%1 ist kein weiterer SSH-Knoten dieses Arbeitsbereichs.</translation>
    </message>
    <message numerus="yes">
        <source>Probing the network %1: %n rank(s), %2…</source>
        <translation>
            <numerusform>Messe das Netzwerk %1: %n Rang, %2…</numerusform>
            <numerusform>Messe das Netzwerk %1: %n Ränge, %2…</numerusform>
        </translation>
    </message>
    <message>
        <source>The probe of the network %1 was cancelled; nothing was stored.</source>
        <translation>Die Messung des Netzwerks %1 wurde abgebrochen; nichts wurde gespeichert.</translation>
    </message>
    <message>
        <source>The probe of the network %1 failed: %2</source>
        <translation>Die Messung des Netzwerks %1 ist fehlgeschlagen: %2</translation>
    </message>
    <message>
        <source>The network %1 was probed, but no collective was measured.</source>
        <translation>Das Netzwerk %1 wurde gemessen, aber keine kollektive Operation.</translation>
    </message>
    <message>
        <source>Network %1: collectives reached %2 GB/s bus bandwidth; the Plan page offers it as an inter-node network of %3 GB/s per node.</source>
        <translation>Netzwerk %1: kollektive Operationen erreichten %2 GB/s Busbandbreite; die Seite „Planen“ bietet es als Netzwerk zwischen Knoten mit %3 GB/s pro Knoten an.</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::PinnedPlansPanel</name>
    <message>
        <source>Pin this plan</source>
        <translation>Diesen Plan anheften</translation>
    </message>
    <message>
        <source>Keep the form&apos;s plan as a column here, to compare it with the plans pinned before.</source>
        <translation>Den Plan des Formulars hier als Spalte behalten, um ihn mit den zuvor angehefteten Plänen zu vergleichen.</translation>
    </message>
    <message>
        <source>Unpin</source>
        <translation>Lösen</translation>
    </message>
    <message>
        <source>Open in form</source>
        <translation>Im Formular öffnen</translation>
    </message>
    <message>
        <source>Clear pins</source>
        <translation>Alle lösen</translation>
    </message>
    <message>
        <source>Name of the saved plan</source>
        <translation>Name des gespeicherten Plans</translation>
    </message>
    <message>
        <source>Save plan</source>
        <translation>Plan speichern</translation>
    </message>
    <message>
        <source>Save the form&apos;s plan in the workspace under this name.</source>
        <translation>Den Plan des Formulars unter diesem Namen im Arbeitsbereich speichern.</translation>
    </message>
    <message>
        <source>Pin saved</source>
        <translation>Gespeicherten anheften</translation>
    </message>
    <message>
        <source>Open saved</source>
        <translation>Gespeicherten öffnen</translation>
    </message>
    <message>
        <source>Delete saved</source>
        <translation>Gespeicherten löschen</translation>
    </message>
    <message>
        <source>Saved as %1.</source>
        <translation>Gespeichert als %1.</translation>
    </message>
    <message>
        <source>Pinned plans</source>
        <translation>Angeheftete Pläne</translation>
    </message>
    <message>
        <source>Plan %1</source>
        <translation>Plan %1</translation>
    </message>
    <message>
        <source> with torch.compile</source>
        <translation> mit torch.compile</translation>
    </message>
    <message>
        <source>off</source>
        <translation>aus</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Modell</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>GPUs per node</source>
        <translation>GPUs je Knoten</translation>
    </message>
    <message>
        <source>Nodes</source>
        <translation>Knoten</translation>
    </message>
    <message>
        <source>Interconnect</source>
        <translation>Verbindung</translation>
    </message>
    <message>
        <source>Inter-node network</source>
        <translation>Netz zwischen Knoten</translation>
    </message>
    <message>
        <source>%1 GB/s</source>
        <translation>%1 GB/s</translation>
    </message>
    <message>
        <source>Host RAM per node</source>
        <translation>Host-RAM je Knoten</translation>
    </message>
    <message>
        <source>Framework</source>
        <translation>Framework</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>Genauigkeit</translation>
    </message>
    <message>
        <source>Micro-batch</source>
        <translation>Micro-Batch</translation>
    </message>
    <message>
        <source>Sequence</source>
        <translation>Sequenz</translation>
    </message>
    <message>
        <source>Accumulation</source>
        <translation>Akkumulation</translation>
    </message>
    <message>
        <source>Activation checkpointing</source>
        <translation>Aktivierungs-Checkpointing</translation>
    </message>
    <message>
        <source>CUDA graphs</source>
        <translation>CUDA-Graphen</translation>
    </message>
    <message>
        <source>on</source>
        <translation>an</translation>
    </message>
    <message>
        <source>Recommendation</source>
        <translation>Empfehlung</translation>
    </message>
    <message>
        <source>nothing fits</source>
        <translation>nichts passt</translation>
    </message>
    <message>
        <source>Peak per GPU</source>
        <translation>Spitze je GPU</translation>
    </message>
    <message>
        <source> (%1)</source>
        <translation> (%1)</translation>
    </message>
    <message>
        <source>Predicted</source>
        <translation>Vorhergesagt</translation>
    </message>
    <message>
        <source>%1 differs between the pinned plans.</source>
        <translation>%1 unterscheidet sich zwischen den angehefteten Plänen.</translation>
    </message>
    <message>
        <source>No plan to save: the form has an error, or no workspace is open.</source>
        <translation>Kein Plan zum Speichern: Das Formular enthält einen Fehler, oder kein Arbeitsbereich ist geöffnet.</translation>
    </message>
    <message>
        <source>Cannot save the plan: %1</source>
        <translation>Der Plan kann nicht gespeichert werden: %1</translation>
    </message>
    <message>
        <source>No saved plan is named %1.</source>
        <translation>Kein gespeicherter Plan heißt %1.</translation>
    </message>
    <message>
        <source>The saved plan %1 no longer describes a plan this version can make.</source>
        <translation>Der gespeicherte Plan %1 beschreibt keinen Plan mehr, den diese Version erstellen kann.</translation>
    </message>
    <message>
        <source>Cannot delete the saved plan: %1</source>
        <translation>Der gespeicherte Plan kann nicht gelöscht werden: %1</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::PlanForm</name>
    <message>
        <source>Model</source>
        <translation>Modell</translation>
    </message>
    <message>
        <source>A model preset, or a Hugging Face config.json you opened (Qwen2, Llama, Mistral).</source>
        <translation>Eine Modellvorlage oder eine geöffnete Hugging-Face-config.json (Qwen2, Llama, Mistral).</translation>
    </message>
    <message>
        <source>Open config.json…</source>
        <translation>config.json öffnen…</translation>
    </message>
    <message>
        <source>Read the architecture from a Hugging Face config.json or a Shardwise model file.</source>
        <translation>Die Architektur aus einer Hugging-Face-config.json oder einer Shardwise-Modelldatei lesen.</translation>
    </message>
    <message>
        <source>&amp;Model:</source>
        <translation>&amp;Modell:</translation>
    </message>
    <message>
        <source>Hardware</source>
        <translation>Hardware</translation>
    </message>
    <message>
        <source>A GPU preset, or Custom to enter the memory and bandwidth figures yourself.</source>
        <translation>Eine GPU-Vorlage oder „Eigene“, um Speicher- und Bandbreitenwerte selbst einzugeben.</translation>
    </message>
    <message>
        <source>&amp;GPU:</source>
        <translation>&amp;GPU:</translation>
    </message>
    <message>
        <source>Custom GPU</source>
        <translation>Eigene GPU</translation>
    </message>
    <message>
        <source> GiB</source>
        <translation> GiB</translation>
    </message>
    <message>
        <source>Device memory as the driver reports it.</source>
        <translation>Gerätespeicher, wie ihn der Treiber meldet.</translation>
    </message>
    <message>
        <source> TFLOP/s</source>
        <translation> TFLOP/s</translation>
    </message>
    <message>
        <source>Dense bf16 tensor-core peak.</source>
        <translation>Dichte bf16-Tensor-Core-Spitzenleistung.</translation>
    </message>
    <message>
        <source> GB/s</source>
        <translation> GB/s</translation>
    </message>
    <message>
        <source>Device memory bandwidth.</source>
        <translation>Bandbreite des Gerätespeichers.</translation>
    </message>
    <message>
        <source>NVLink bandwidth per GPU per direction; 0 means no NVLink.</source>
        <translation>NVLink-Bandbreite je GPU und Richtung; 0 bedeutet kein NVLink.</translation>
    </message>
    <message>
        <source>Host link (PCIe) bandwidth per direction.</source>
        <translation>Bandbreite der Hostverbindung (PCIe) je Richtung.</translation>
    </message>
    <message>
        <source>Memory:</source>
        <translation>Speicher:</translation>
    </message>
    <message>
        <source>bf16 peak:</source>
        <translation>bf16-Spitze:</translation>
    </message>
    <message>
        <source>HBM bandwidth:</source>
        <translation>HBM-Bandbreite:</translation>
    </message>
    <message>
        <source>NVLink:</source>
        <translation>NVLink:</translation>
    </message>
    <message>
        <source>PCIe:</source>
        <translation>PCIe:</translation>
    </message>
    <message>
        <source>GPUs in each node; every GPU runs one rank.</source>
        <translation>GPUs je Knoten; jede GPU führt einen Rang aus.</translation>
    </message>
    <message>
        <source>Nodes; more than one adds the inter-node network to every collective.</source>
        <translation>Knoten; mehr als einer bringt das Netz zwischen den Knoten in jede Kollektivoperation.</translation>
    </message>
    <message>
        <source>GPUs per node ×</source>
        <translation>GPUs je Knoten ×</translation>
    </message>
    <message>
        <source>nodes</source>
        <translation>Knoten</translation>
    </message>
    <message>
        <source>&amp;Cluster:</source>
        <translation>&amp;Cluster:</translation>
    </message>
    <message>
        <source>NVLink</source>
        <translation>NVLink</translation>
    </message>
    <message>
        <source>PCIe</source>
        <translation>PCIe</translation>
    </message>
    <message>
        <source>How the GPUs inside a node talk. The decision order&apos;s step 2 chooses by it.</source>
        <translation>Wie die GPUs innerhalb eines Knotens verbunden sind. Schritt 2 der Entscheidungsreihenfolge wählt danach.</translation>
    </message>
    <message>
        <source>&amp;Interconnect:</source>
        <translation>&amp;Verbindung:</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>Training</translation>
    </message>
    <message>
        <source>bf16 (params, grads, Adam moments)</source>
        <translation>bf16 (Parameter, Gradienten, Adam-Momente)</translation>
    </message>
    <message>
        <source>bf16 compute, fp32 master weights and moments</source>
        <translation>bf16-Berechnung, fp32-Mastergewichte und -Momente</translation>
    </message>
    <message>
        <source>Bytes per parameter of the training state: 8 for pure bf16, 16 with fp32 master weights.</source>
        <translation>Bytes je Parameter des Trainingszustands: 8 bei reinem bf16, 16 mit fp32-Mastergewichten.</translation>
    </message>
    <message>
        <source>&amp;Precision:</source>
        <translation>&amp;Präzision:</translation>
    </message>
    <message>
        <source>Sequences per GPU per step.</source>
        <translation>Sequenzen je GPU und Schritt.</translation>
    </message>
    <message>
        <source>Micro-&amp;batch:</source>
        <translation>Micro-&amp;Batch:</translation>
    </message>
    <message>
        <source> tokens</source>
        <translation> Token</translation>
    </message>
    <message>
        <source>Tokens per sequence.</source>
        <translation>Token je Sequenz.</translation>
    </message>
    <message>
        <source>&amp;Sequence:</source>
        <translation>&amp;Sequenz:</translation>
    </message>
    <message>
        <source>expandable_segments:True</source>
        <translation>expandable_segments:True</translation>
    </message>
    <message>
        <source>PyTorch&apos;s caching-allocator setting that grows segments in place; it reduces fragmentation. In the reference benchmark two PCIe configurations only completed with it.</source>
        <translation>Einstellung des PyTorch-Caching-Allocators, die Segmente an Ort und Stelle wachsen lässt; sie verringert Fragmentierung. Im Referenz-Benchmark liefen zwei PCIe-Konfigurationen nur damit durch.</translation>
    </message>
    <message>
        <source>Allocator:</source>
        <translation>Allocator:</translation>
    </message>
    <message>
        <source>Step:</source>
        <translation>Schritt:</translation>
    </message>
    <message>
        <source>Activation checkpointing</source>
        <translation>Aktivierungs-Checkpointing</translation>
    </message>
    <message>
        <source>Recompute each layer&apos;s forward in backward: less activation memory, about a third more compute.</source>
        <translation>Den Vorwärtsdurchlauf jeder Schicht im Rückwärtsdurchlauf neu berechnen: weniger Aktivierungsspeicher, etwa ein Drittel mehr Rechenaufwand.</translation>
    </message>
    <message>
        <source>%1 (%2 GiB)</source>
        <translation>%1 (%2 GiB)</translation>
    </message>
    <message>
        <source>Custom GPU…</source>
        <translation>Eigene GPU…</translation>
    </message>
    <message>
        <source>%1 (from %2)</source>
        <translation>%1 (aus %2)</translation>
    </message>
    <message>
        <source>Open a model configuration</source>
        <translation>Eine Modellkonfiguration öffnen</translation>
    </message>
    <message>
        <source>Model configuration (*.json);;All files (*)</source>
        <translation>Modellkonfiguration (*.json);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>%1 B parameters</source>
        <translation>%1 Mrd. Parameter</translation>
    </message>
    <message>
        <source>%1 M parameters</source>
        <translation>%1 Mio. Parameter</translation>
    </message>
    <message>
        <source>%1 parameters</source>
        <translation>%1 Parameter</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>Host memory (RAM) of each node. It decides whether the CPU-offload strategies fit: their host state (master weights, Adam moments, gradient shards, page-locked) for all of the node&apos;s GPUs must fit in the %1 % of it taken as usable.</source>
        <translation>Hostspeicher (RAM) jedes Knotens. Er entscheidet, ob die Strategien mit CPU-Auslagerung passen: Ihr Zustand im Hostspeicher (Master-Gewichte, Adam-Momente, Gradienten-Shards, page-locked) für alle GPUs des Knotens muss in die %1 % davon passen, die als nutzbar gelten.</translation>
    </message>
    <message>
        <source>Host &amp;RAM per node:</source>
        <translation>Host-&amp;RAM je Knoten:</translation>
    </message>
    <message>
        <source>C&amp;UDA graphs</source>
        <translation>C&amp;UDA-Graphen</translation>
    </message>
    <message>
        <source>Capture each training step once as a CUDA graph and replay it: the CPU issues one graph launch per step instead of every kernel, which speeds up small models and short sequences. Applies to the GPU-resident strategies (no CPU offload) under bf16 only; the CPU-offload strategies stay eager.</source>
        <translation>Jeden Trainingsschritt einmal als CUDA-Graph aufzeichnen und wieder abspielen: Die CPU startet je Schritt einen Graphen statt jedes einzelnen Kernels, was kleine Modelle und kurze Sequenzen beschleunigt. Gilt nur für die Strategien, deren Zustand auf der GPU bleibt (ohne CPU-Auslagerung), und nur mit bf16; die Strategien mit CPU-Auslagerung laufen weiter ohne Graph.</translation>
    </message>
    <message>
        <source>8 × 400 Gb/s InfiniBand</source>
        <translation>8 × 400 Gb/s InfiniBand</translation>
    </message>
    <message>
        <source>8 × 200 Gb/s InfiniBand</source>
        <translation>8 × 200 Gb/s InfiniBand</translation>
    </message>
    <message>
        <source>4 × 200 Gb/s InfiniBand</source>
        <translation>4 × 200 Gb/s InfiniBand</translation>
    </message>
    <message>
        <source>400 Gb/s Ethernet</source>
        <translation>400 Gb/s Ethernet</translation>
    </message>
    <message>
        <source>100 Gb/s Ethernet</source>
        <translation>100 Gb/s Ethernet</translation>
    </message>
    <message>
        <source>%1 (%2 GB/s per node)</source>
        <translation>%1 (%2 GB/s je Knoten)</translation>
    </message>
    <message>
        <source>Custom…</source>
        <translation>Eigener Wert…</translation>
    </message>
    <message>
        <source>The network between nodes: every collective that spans nodes runs at this bandwidth.</source>
        <translation>Das Netz zwischen den Knoten: jede Kollektivoperation über Knotengrenzen läuft mit dieser Bandbreite.</translation>
    </message>
    <message>
        <source>Network bandwidth per node per direction, in GB/s (8 × 400 Gb/s NICs = 400 GB/s).</source>
        <translation>Netzbandbreite je Knoten und Richtung in GB/s (8 × 400-Gb/s-NICs = 400 GB/s).</translation>
    </message>
    <message>
        <source>Inter-&amp;node network:</source>
        <translation>&amp;Netz zwischen Knoten:</translation>
    </message>
    <message>
        <source>Framework</source>
        <translation>Framework</translation>
    </message>
    <message>
        <source>Shardwise runner (native)</source>
        <translation>Shardwise-Runner (nativ)</translation>
    </message>
    <message>
        <source>DeepSpeed</source>
        <translation>DeepSpeed</translation>
    </message>
    <message>
        <source>PyTorch FSDP2</source>
        <translation>PyTorch FSDP2</translation>
    </message>
    <message>
        <source>torchtitan</source>
        <translation>torchtitan</translation>
    </message>
    <message>
        <source>The framework you train with: the plan predicts what it allocates and how fast it runs at its defaults, and marks the strategies it cannot run. Choosing one takes its default precision and activation checkpointing.</source>
        <translation>Das Framework, mit dem Sie trainieren: Der Plan sagt voraus, was es mit seinen Voreinstellungen belegt und wie schnell es läuft, und kennzeichnet die Strategien, die es nicht ausführen kann. Die Auswahl übernimmt seine voreingestellte Präzision und sein Activation Checkpointing.</translation>
    </message>
    <message>
        <source>Frame&amp;work:</source>
        <translation>Frame&amp;work:</translation>
    </message>
    <message>
        <source>The release you train with; empty means the release Shardwise models.</source>
        <translation>Die Version, mit der Sie trainieren; leer bedeutet die Version, die Shardwise modelliert.</translation>
    </message>
    <message>
        <source>V&amp;ersion:</source>
        <translation>V&amp;ersion:</translation>
    </message>
    <message>
        <source>torch.compile each decoder layer</source>
        <translation>torch.compile für jede Decoder-Schicht</translation>
    </message>
    <message>
        <source>Compiled layers (PyTorch FSDP2 and torchtitan).</source>
        <translation>Kompilierte Schichten (PyTorch FSDP2 und torchtitan).</translation>
    </message>
    <message>
        <source>Micro-batches per optimizer step.</source>
        <translation>Micro-Batches je Optimiererschritt.</translation>
    </message>
    <message>
        <source>Accumula&amp;tion:</source>
        <translation>Akkumula&amp;tion:</translation>
    </message>
    <message>
        <source>full layers</source>
        <translation>ganze Schichten</translation>
    </message>
    <message>
        <source>selective</source>
        <translation>selektiv</translation>
    </message>
    <message>
        <source>Full recomputes each layer&apos;s forward; selective keeps the matmul outputs and recomputes the cheap parts (torchtitan&apos;s default).</source>
        <translation>Ganz berechnet den Vorwärtslauf jeder Schicht neu; selektiv behält die Matmul-Ausgaben und berechnet nur die billigen Teile neu (Voreinstellung von torchtitan).</translation>
    </message>
    <message>
        <source>%1 (default)</source>
        <translation>%1 (Voreinstellung)</translation>
    </message>
    <message>
        <source>Sequence</source>
        <translation>Sequenz</translation>
    </message>
    <message>
        <source>Micro-batch</source>
        <translation>Micro-Batch</translation>
    </message>
    <message>
        <source>Accumulation</source>
        <translation>Akkumulation</translation>
    </message>
    <message>
        <source>GPUs per node</source>
        <translation>GPUs je Knoten</translation>
    </message>
    <message>
        <source>Nodes</source>
        <translation>Knoten</translation>
    </message>
    <message>
        <source>Host RAM per node</source>
        <translation>Host-RAM je Knoten</translation>
    </message>
    <message>
        <source>Inter-node network</source>
        <translation>Netz zwischen Knoten</translation>
    </message>
    <message>
        <source>Custom GPU memory (at least 1 GiB)</source>
        <translation>Speicher der eigenen GPU (mindestens 1 GiB)</translation>
    </message>
    <message>
        <source>Custom GPU bf16 peak</source>
        <translation>bf16-Spitzenleistung der eigenen GPU</translation>
    </message>
    <message>
        <source>Custom GPU PCIe bandwidth</source>
        <translation>PCIe-Bandbreite der eigenen GPU</translation>
    </message>
    <message>
        <source>Measured: %1 (%2 GB/s per node)</source>
        <translation>Gemessen: %1 (%2 GB/s pro Knoten)</translation>
    </message>
    <message>
        <source>Probed %1: collectives between the nodes reached %2 GB/s bus bandwidth, which the planner reaches at %3 GB/s per node.</source>
        <translation>Gemessen %1: kollektive Operationen zwischen den Knoten erreichten %2 GB/s Busbandbreite, die der Planer bei %3 GB/s pro Knoten erreicht.</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::PlanPage</name>
    <message>
        <source>The decision order: lightest sharding that fits, then full sharding chosen by interconnect, then CPU offload; always validate on your own hardware.</source>
        <translation>Die Entscheidungsreihenfolge: leichtestes Sharding, das passt, dann volles Sharding nach Verbindung, dann CPU-Auslagerung; immer auf der eigenen Hardware prüfen.</translation>
    </message>
    <message>
        <source>Where the validation runs are measured.</source>
        <translation>Wo die Prüfläufe gemessen werden.</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>CUDA GPUs</source>
        <translation>CUDA-GPUs</translation>
    </message>
    <message>
        <source>CPU runs exercise every strategy&apos;s schedule on any machine; their throughput says nothing about a GPU.</source>
        <translation>CPU-Läufe üben den Ablauf jeder Strategie auf jedem Rechner; ihr Durchsatz sagt nichts über eine GPU.</translation>
    </message>
    <message>
        <source>What measures the runs: Shardwise&apos;s runner, or PyTorch itself (DDP and fully_shard, the runs the PyTorch FSDP2 target predicts). Strategies PyTorch cannot express are left out.</source>
        <translation>Was die Läufe misst: der Shardwise-Runner oder PyTorch selbst (DDP und fully_shard, die Läufe, die das Ziel PyTorch FSDP2 vorhersagt). Strategien, die PyTorch nicht ausdrücken kann, werden ausgelassen.</translation>
    </message>
    <message>
        <source>Left out, as %1 cannot run them: %2.</source>
        <translation>Ausgelassen, da %1 sie nicht ausführen kann: %2.</translation>
    </message>
    <message>
        <source>V&amp;alidate</source>
        <translation>Prü&amp;fen</translation>
    </message>
    <message>
        <source>Queue the plan&apos;s run matrix (the recommendation and what the decision order says to measure beside it) with the same model, precision, micro-batch, sequence and GPU count (%1).</source>
        <translation>Die Laufmatrix des Plans (die Empfehlung und was laut Entscheidungsreihenfolge daneben zu messen ist) mit gleichem Modell, gleicher Präzision, gleichem Micro-Batch, gleicher Sequenz und GPU-Zahl einreihen (%1).</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>Stop the running measurement and drop the queued ones.</source>
        <translation>Die laufende Messung stoppen und die eingereihten verwerfen.</translation>
    </message>
    <message>
        <source>Validate on:</source>
        <translation>Prüfen auf:</translation>
    </message>
    <message>
        <source>Validation cancelled.</source>
        <translation>Prüfung abgebrochen.</translation>
    </message>
    <message>
        <source>Cannot plan this configuration: %1</source>
        <translation>Diese Konfiguration kann nicht geplant werden: %1</translation>
    </message>
    <message numerus="yes">
        <source>Queued %n run(s) on %1; the Runs page shows them with the rest of the queue.</source>
        <translation>
            <numerusform>%n Lauf auf %1 eingereiht; die Seite „Läufe“ zeigt ihn mit dem Rest der Warteschlange.</numerusform>
            <numerusform>%n Läufe auf %1 eingereiht; die Seite „Läufe“ zeigt sie mit dem Rest der Warteschlange.</numerusform>
        </translation>
    </message>
    <message>
        <source>Run %1 of %2: step %3 of %4</source>
        <translation>Lauf %1 von %2: Schritt %3 von %4</translation>
    </message>
    <message>
        <source>&amp;Open config…</source>
        <translation>K&amp;onfiguration öffnen…</translation>
    </message>
    <message>
        <source>Read a DeepSpeed ds_config.json or an Accelerate config YAML into the form: framework, strategy, precision, micro-batch, accumulation, GPUs, checkpointing and DeepSpeed&apos;s knobs.</source>
        <translation>Eine DeepSpeed-ds_config.json oder eine Accelerate-YAML-Konfiguration ins Formular lesen: Framework, Strategie, Präzision, Micro-Batch, Akkumulation, GPUs, Checkpointing und die Stellgrößen von DeepSpeed.</translation>
    </message>
    <message>
        <source>E&amp;xport</source>
        <translation>E&amp;xportieren</translation>
    </message>
    <message>
        <source>Write the selected candidate (or the recommendation) as a config for the framework you train with; each file names the plan it came from.</source>
        <translation>Den gewählten Kandidaten (oder die Empfehlung) als Konfiguration für Ihr Framework schreiben; jede Datei nennt den Plan, aus dem sie stammt.</translation>
    </message>
    <message>
        <source>DeepSpeed ds_config.json…</source>
        <translation>DeepSpeed-ds_config.json…</translation>
    </message>
    <message>
        <source>Accelerate config YAML…</source>
        <translation>Accelerate-Konfiguration (YAML)…</translation>
    </message>
    <message>
        <source>torchtitan job config TOML…</source>
        <translation>torchtitan-Job-Konfiguration (TOML)…</translation>
    </message>
    <message>
        <source>PyTorch FSDP2 script…</source>
        <translation>PyTorch-FSDP2-Skript…</translation>
    </message>
    <message>
        <source>Launch lines (torchrun, deepspeed, srun)…</source>
        <translation>Startzeilen (torchrun, deepspeed, srun)…</translation>
    </message>
    <message>
        <source>Slurm batch script…</source>
        <translation>Slurm-Batch-Skript…</translation>
    </message>
    <message>
        <source>Nothing to export: no candidate is selected and nothing fits.</source>
        <translation>Nichts zu exportieren: kein Kandidat gewählt und nichts passt.</translation>
    </message>
    <message>
        <source>Write %1 for %2.</source>
        <translation>%1 für %2 schreiben.</translation>
    </message>
    <message>
        <source>Cannot write %1.</source>
        <translation>%1 kann nicht geschrieben werden.</translation>
    </message>
    <message>
        <source>Export %1</source>
        <translation>%1 exportieren</translation>
    </message>
    <message>
        <source>Wrote %1.</source>
        <translation>%1 geschrieben.</translation>
    </message>
    <message>
        <source>Read %1 (%2).</source>
        <translation>%1 gelesen (%2).</translation>
    </message>
    <message>
        <source>Warning: %1: %2</source>
        <translation>Warnung: %1: %2</translation>
    </message>
    <message>
        <source>Left to the plan (&quot;auto&quot;): %1</source>
        <translation>Dem Plan überlassen („auto“): %1</translation>
    </message>
    <message>
        <source>Cannot read %1: %2</source>
        <translation>%1 kann nicht gelesen werden: %2</translation>
    </message>
    <message>
        <source>Open a DeepSpeed, Accelerate or torchtitan config</source>
        <translation>DeepSpeed-, Accelerate- oder torchtitan-Konfiguration öffnen</translation>
    </message>
    <message>
        <source>Framework configs (*.json *.yaml *.yml *.toml);;All files (*)</source>
        <translation>Framework-Konfigurationen (*.json *.yaml *.yml *.toml);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>%1 reads it, while this plan&apos;s figures are for %2; choose %1 as the framework for its defaults and figures.</source>
        <translation>%1 liest sie, die Zahlen dieses Plans gelten aber für %2; wählen Sie %1 als Framework für seine Voreinstellungen und Zahlen.</translation>
    </message>
    <message>
        <source>The predicted peak per GPU of each strategy, stacked by kind. The dashed line is the usable GPU memory (less the planner&apos;s headroom): a bar above it does not fit.</source>
        <translation>Die vorhergesagte Spitze je GPU jeder Strategie, nach Art gestapelt. Die gestrichelte Linie ist der nutzbare GPU-Speicher (abzüglich der Reserve des Planers): Ein Balken darüber passt nicht.</translation>
    </message>
    <message>
        <source>Cannot open %1 as a model: %2</source>
        <translation>%1 kann nicht als Modell geöffnet werden: %2</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>Report: reasoning, charts and CSV…</source>
        <translation>Bericht: Begründung, Diagramme und CSV…</translation>
    </message>
    <message>
        <source>Write the plan&apos;s reasoning (Markdown), its memory chart (SVG, PNG) and the candidates&apos; figures (CSV) into one folder.</source>
        <translation>Die Begründung des Plans (Markdown), sein Speicherdiagramm (SVG, PNG) und die Zahlen der Kandidaten (CSV) in einen Ordner schreiben.</translation>
    </message>
    <message>
        <source>Export report into folder</source>
        <translation>Bericht in Ordner exportieren</translation>
    </message>
    <message>
        <source>Wrote the report into %1.</source>
        <translation>Bericht nach %1 geschrieben.</translation>
    </message>
    <message>
        <source>This machine has no CUDA GPU that Shardwise knows of: a rehearsal measures one GPU&apos;s allocator peaks. Discover this machine&apos;s GPUs on the Nodes page.</source>
        <translation>Auf diesem Rechner ist Shardwise keine CUDA-GPU bekannt: Ein Probelauf misst die Allokator-Spitzen einer GPU. Ermitteln Sie die GPUs dieses Rechners auf der Seite „Knoten“.</translation>
    </message>
    <message>
        <source>Nothing to rehearse: no candidate is selected and nothing fits.</source>
        <translation>Nichts zu proben: Kein Kandidat ist ausgewählt, und nichts passt.</translation>
    </message>
    <message>
        <source>Run %1 on one GPU of this machine as rank 0 of world %2, with the plan&apos;s model, sequence, micro-batch, precision, checkpointing and allocator settings, on %3. The communicator moves no data: the run measures one rank&apos;s memory at world %2, not its speed. The Runs page shows it.</source>
        <translation>%1 auf einer GPU dieses Rechners als Rang 0 der Welt %2 ausführen, mit Modell, Sequenz, Mikro-Batch, Genauigkeit, Checkpointing und Allokator-Einstellungen des Plans, mit %3. Der Kommunikator bewegt keine Daten: Der Lauf misst den Speicher eines Rangs bei Welt %2, nicht seine Geschwindigkeit. Die Seite „Läufe“ zeigt ihn.</translation>
    </message>
    <message>
        <source>Check the fit of world %1 on this GPU</source>
        <translation>Passt Welt %1? Auf dieser GPU prüfen</translation>
    </message>
    <message>
        <source>Cannot check the fit: %1</source>
        <translation>Passung kann nicht geprüft werden: %1</translation>
    </message>
    <message>
        <source>Queued a rehearsal of world %1 (%2) on this machine; the Runs page shows it.</source>
        <translation>Probelauf der Welt %1 (%2) auf diesem Rechner eingereiht; die Seite „Läufe“ zeigt ihn.</translation>
    </message>
    <message>
        <source>Suggestion: %1 on PCIe needed expandable segments in the reference; tick &quot;%2&quot; under Allocator to measure it that way. Validate kept your setting (off).</source>
        <translation>Vorschlag: %1 über PCIe brauchte in der Referenz expandable segments; setzen Sie unter Allocator das Häkchen bei „%2“, um so zu messen. Validieren hat Ihre Einstellung (aus) beibehalten.</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::ProbeJob</name>
    <message>
        <source>rank %1: %2</source>
        <translation>Rang %1: %2</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::RankProgressModel</name>
    <message>
        <source>%1 MiB</source>
        <translation>%1 MiB</translation>
    </message>
    <message>
        <source>Rank %1</source>
        <translation>Rang %1</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>Fehlgeschlagen</translation>
    </message>
    <message>
        <source>Finished</source>
        <translation>Beendet</translation>
    </message>
    <message>
        <source>Starting</source>
        <translation>Startet</translation>
    </message>
    <message>
        <source>Warming up</source>
        <translation>Aufwärmen</translation>
    </message>
    <message>
        <source>Timing</source>
        <translation>Messen</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 von %2</translation>
    </message>
    <message>
        <source>%1 allocated, %2 peak</source>
        <translation>%1 belegt, %2 Spitze</translation>
    </message>
    <message>
        <source>%1 peak RSS (host)</source>
        <translation>%1 Spitzen-RSS (Host)</translation>
    </message>
    <message>
        <source>This rank&apos;s tokens over its timed steps so far, divided by their step time; warm-up steps are left out.</source>
        <translation>Die Token dieses Rangs über seine bisherigen gemessenen Schritte, geteilt durch deren Schrittzeit; Aufwärmschritte zählen nicht.</translation>
    </message>
    <message>
        <source>Rank</source>
        <translation>Rang</translation>
    </message>
    <message>
        <source>State</source>
        <translation>Zustand</translation>
    </message>
    <message>
        <source>Steps done</source>
        <translation>Erledigte Schritte</translation>
    </message>
    <message>
        <source>Throughput so far</source>
        <translation>Bisheriger Durchsatz</translation>
    </message>
    <message>
        <source>Last step</source>
        <translation>Letzter Schritt</translation>
    </message>
    <message>
        <source>Loss</source>
        <translation>Verlust</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>Speicher</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>Abgebrochen</translation>
    </message>
    <message>
        <source>Stopped</source>
        <extracomment>a rank the launcher stopped when the run ended (another rank failed, or it timed out)</extracomment>
        <translation>Gestoppt</translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation>Breche ab…</translation>
    </message>
    <message>
        <source>The run was cancelled before this rank finished; it was stopped.</source>
        <translation>Der Lauf wurde abgebrochen, bevor dieser Rang fertig war; der Rang wurde gestoppt.</translation>
    </message>
    <message>
        <source>The run timed out before this rank finished; it was stopped.</source>
        <translation>Der Lauf hat die Zeit überschritten, bevor dieser Rang fertig war; der Rang wurde gestoppt.</translation>
    </message>
    <message>
        <source>The run ended (another rank failed) before this rank finished; it was stopped.</source>
        <translation>Der Lauf endete (ein anderer Rang schlug fehl), bevor dieser Rang fertig war; der Rang wurde gestoppt.</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::RunDiagnosisPanel</name>
    <message>
        <source>The lines that show the selected failure appear here.</source>
        <translation>Die Zeilen, die den ausgewählten Fehler zeigen, erscheinen hier.</translation>
    </message>
    <message>
        <source>Suggested next steps</source>
        <translation>Empfohlene nächste Schritte</translation>
    </message>
    <message>
        <source>Select a run that did not complete to see why.</source>
        <translation>Wählen Sie einen nicht abgeschlossenen Lauf, um den Grund zu sehen.</translation>
    </message>
    <message>
        <source>rank %1</source>
        <translation>Rang %1</translation>
    </message>
    <message>
        <source>the launcher</source>
        <translation>der Launcher</translation>
    </message>
    <message>
        <source>First failure on %1: %2. %3</source>
        <extracomment>headline of a diagnosis: where the first failure happened, its kind, its message</extracomment>
        <translation>Erster Fehler auf %1: %2. %3</translation>
    </message>
    <message>
        <source>Only symptoms were found (e.g. timeouts after a peer vanished); the cause left no trace in these logs.</source>
        <translation>Nur Symptome gefunden (z. B. Zeitüberschreitungen, nachdem ein Partner verschwand); die Ursache hinterließ in diesen Protokollen keine Spur.</translation>
    </message>
    <message>
        <source>No failure was recognised in the ranks&apos; logs and events.</source>
        <translation>In den Protokollen und Ereignissen der Ränge wurde kein Fehler erkannt.</translation>
    </message>
    <message>
        <source>Another failure happened within the clock uncertainty of the first one, so their order is not certain.</source>
        <translation>Ein weiterer Fehler geschah innerhalb der Uhrenungenauigkeit des ersten, daher ist ihre Reihenfolge nicht sicher.</translation>
    </message>
    <message>
        <source>%1:%2: %3</source>
        <translation>%1:%2: %3</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>Last lines it wrote:</source>
        <translation>Zuletzt geschriebene Zeilen:</translation>
    </message>
    <message>
        <source>Rerun with expandable segments</source>
        <translation>Mit erweiterbaren Segmenten wiederholen</translation>
    </message>
    <message>
        <source>Rerun with %1 (offload)</source>
        <translation>Mit %1 wiederholen (Auslagerung)</translation>
    </message>
    <message>
        <source>Rerun with %1</source>
        <translation>Mit %1 wiederholen</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::RunFailureModel</name>
    <message>
        <source>Rank %1</source>
        <translation>Rang %1</translation>
    </message>
    <message>
        <source>Launcher</source>
        <extracomment>a failure not tied to one rank (a launcher or node log)</extracomment>
        <translation>Launcher</translation>
    </message>
    <message>
        <source>First failure (root cause)</source>
        <translation>Erster Fehler (Ursache)</translation>
    </message>
    <message>
        <source>Symptom</source>
        <extracomment>a failure that follows from another one, e.g. a watchdog timeout after a peer died</extracomment>
        <translation>Symptom</translation>
    </message>
    <message>
        <source>Failure</source>
        <translation>Fehler</translation>
    </message>
    <message>
        <source>%1:%2: %3</source>
        <translation>%1:%2: %3</translation>
    </message>
    <message>
        <source>Order</source>
        <extracomment>position of a failure in time order</extracomment>
        <translation>Reihenfolge</translation>
    </message>
    <message>
        <source>Where</source>
        <translation>Wo</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>Art</translation>
    </message>
    <message>
        <source>Logged at</source>
        <translation>Protokolliert um</translation>
    </message>
    <message>
        <source>Role</source>
        <translation>Rolle</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>Meldung</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::RunHistoryModel</name>
    <message>
        <source>Running</source>
        <translation>Läuft</translation>
    </message>
    <message>
        <source>Completed</source>
        <translation>Abgeschlossen</translation>
    </message>
    <message>
        <source>Out of memory</source>
        <translation>Speicher erschöpft</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>Fehlgeschlagen</translation>
    </message>
    <message>
        <source>Timed out</source>
        <translation>Zeit überschritten</translation>
    </message>
    <message>
        <source>Node lost</source>
        <translation>Knoten verloren</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>Abgebrochen</translation>
    </message>
    <message>
        <source>Interrupted</source>
        <extracomment>a run whose recording process stopped without finishing it</extracomment>
        <translation>Unterbrochen</translation>
    </message>
    <message numerus="yes">
        <source>%n rank(s)</source>
        <translation>
            <numerusform>%n Rang</numerusform>
            <numerusform>%n Ränge</numerusform>
        </translation>
    </message>
    <message>
        <source>#</source>
        <extracomment>run number</extracomment>
        <translation>#</translation>
    </message>
    <message>
        <source>Started</source>
        <translation>Gestartet</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>Strategy</source>
        <translation>Strategie</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Modell</translation>
    </message>
    <message>
        <source>Ranks</source>
        <translation>Ränge</translation>
    </message>
    <message>
        <source>Node</source>
        <translation>Knoten</translation>
    </message>
    <message>
        <source>Throughput</source>
        <translation>Durchsatz</translation>
    </message>
    <message>
        <source>Median step</source>
        <translation>Median-Schritt</translation>
    </message>
    <message>
        <source>Peak allocated</source>
        <translation>Spitze belegt</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>Begründung</translation>
    </message>
    <message>
        <source>Detached</source>
        <extracomment>a remote run whose ranks go on running on their nodes with nothing following them; it can be re-attached</extracomment>
        <translation>Abgekoppelt</translation>
    </message>
    <message>
        <source>Backend</source>
        <translation>Backend</translation>
    </message>
    <message>
        <source>%1 (predicted %2 at world %3)</source>
        <translation>%1 (vorhergesagt %2 bei Welt %3)</translation>
    </message>
    <message>
        <source>%1 Measured on rank 0 of a rehearsal of world %2; the prediction is the plan&apos;s per rank at world %2.</source>
        <translation>%1 Gemessen auf Rang 0 eines Probelaufs der Welt %2; die Vorhersage ist die des Plans je Rang bei Welt %2.</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::RunJob</name>
    <message>
        <source>shardwise-runner was not found: set SHARDWISE_RUNNER or install it beside this program.</source>
        <translation>shardwise-runner wurde nicht gefunden: SHARDWISE_RUNNER setzen oder ihn neben diesem Programm installieren.</translation>
    </message>
    <message>
        <source>%1 completed: %2</source>
        <translation>%1 abgeschlossen: %2</translation>
    </message>
    <message>
        <source>%1 ended as %2: %3</source>
        <translation>%1 endete als %2: %3</translation>
    </message>
    <message>
        <source>The run could not be started: %1</source>
        <translation>Der Lauf konnte nicht gestartet werden: %1</translation>
    </message>
    <message>
        <source>The runner %1 is not an executable file (check SHARDWISE_RUNNER).</source>
        <translation>Der Runner %1 ist keine ausführbare Datei (SHARDWISE_RUNNER prüfen).</translation>
    </message>
    <message>
        <source>The node &quot;%1&quot; is no longer in this workspace.</source>
        <translation>Der Knoten „%1“ ist nicht mehr in diesem Arbeitsbereich.</translation>
    </message>
    <message>
        <source>The node &quot;%1&quot; has no runner yet: prepare it on the Nodes page first.</source>
        <translation>Der Knoten „%1“ hat noch keinen Runner: Bereiten Sie ihn zuerst auf der Seite „Knoten“ vor.</translation>
    </message>
    <message>
        <source>Cannot connect to the node &quot;%1&quot;: %2</source>
        <translation>Keine Verbindung zum Knoten „%1“: %2</translation>
    </message>
    <message>
        <source>The run was not recorded: %1</source>
        <translation>Der Lauf wurde nicht aufgezeichnet: %1</translation>
    </message>
    <message>
        <source>(The store reported a problem: %1)</source>
        <translation>(Der Speicher meldete ein Problem: %1)</translation>
    </message>
    <message>
        <source>Run %1 is no longer stored.</source>
        <translation>Lauf %1 ist nicht mehr gespeichert.</translation>
    </message>
    <message>
        <source>Run %1 is not detached (it is &quot;%2&quot;); only a detached run on an SSH node can be re-attached.</source>
        <translation>Lauf %1 ist nicht abgekoppelt (er ist „%2“); nur ein abgekoppelter Lauf auf einem SSH-Knoten kann wieder angekoppelt werden.</translation>
    </message>
    <message>
        <source>The node &quot;%1&quot; of run %2 is no longer an SSH node of this workspace.</source>
        <translation>Der Knoten „%1“ von Lauf %2 ist kein SSH-Knoten dieses Arbeitsbereichs mehr.</translation>
    </message>
    <message>
        <source>Cannot connect to the node &quot;%1&quot;: %2; run %3 stays detached.</source>
        <translation>Keine Verbindung zum Knoten „%1“: %2; Lauf %3 bleibt abgekoppelt.</translation>
    </message>
    <message>
        <source>Run %1 cannot be re-attached: %2</source>
        <translation>Lauf %1 kann nicht wieder angekoppelt werden: %2</translation>
    </message>
    <message>
        <source>%1 detached: its ranks go on running on the node; re-attach run %2 from the Runs page.</source>
        <translation>%1 abgekoppelt: Die Ranks laufen auf dem Knoten weiter; koppeln Sie Lauf %2 auf der Seite „Läufe“ wieder an.</translation>
    </message>
    <message>
        <source>Run %1 cannot be abandoned: %2</source>
        <translation>Lauf %1 kann nicht aufgegeben werden: %2</translation>
    </message>
    <message>
        <source>Run %1 abandoned: kept as lost.</source>
        <translation>Lauf %1 aufgegeben: als verloren gespeichert.</translation>
    </message>
    <message>
        <source>Ranks still running were stopped on %1.</source>
        <translation>Noch laufende Ranks wurden gestoppt auf %1.</translation>
    </message>
    <message>
        <source>Not reached, so its ranks may still be running: %1.</source>
        <translation>Nicht erreicht, seine Ranks laufen daher möglicherweise noch: %1.</translation>
    </message>
    <message>
        <source>The steps recorded before the detach could not be read: %1</source>
        <translation>Die vor dem Abkoppeln gespeicherten Schritte konnten nicht gelesen werden: %1</translation>
    </message>
    <message>
        <source>%1, run %2: %3.</source>
        <translation>%1, Lauf %2: %3.</translation>
    </message>
    <message>
        <source>Abandoning run %1 was cancelled; it stays detached.</source>
        <translation>Das Aufgeben von Lauf %1 wurde abgebrochen; er bleibt abgekoppelt.</translation>
    </message>
    <message>
        <source>The node &quot;%1&quot; cannot run the torch backend: %2</source>
        <translation>Der Knoten „%1“ kann das torch-Backend nicht ausführen: %2</translation>
    </message>
    <message>
        <source>shardwise-torch-runner (the torch backend) was not found: set SHARDWISE_TORCH_RUNNER or install it beside shardwise-runner.</source>
        <translation>shardwise-torch-runner (das torch-Backend) wurde nicht gefunden: Setzen Sie SHARDWISE_TORCH_RUNNER oder installieren Sie es neben shardwise-runner.</translation>
    </message>
    <message>
        <source>%1 completed, %2: peak allocated %3 per rank (memory only)</source>
        <translation>%1 abgeschlossen, %2: Spitze belegt %3 je Rang (nur Speicher)</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::RunOriginBar</name>
    <message>
        <source>Re&amp;move run…</source>
        <translation>Lauf &amp;entfernen…</translation>
    </message>
    <message numerus="yes">
        <source>%n run(s) on node “example” are examples shipped with Shardwise: the project&apos;s own measurements on an NVIDIA H200, each with the planner&apos;s prediction for it.</source>
        <translation>
            <numerusform>%n Lauf auf dem Knoten „example“ ist ein mit Shardwise ausgeliefertes Beispiel: eine eigene Messung des Projekts auf einer NVIDIA H200, mit der Vorhersage des Planers dafür.</numerusform>
            <numerusform>%n Läufe auf dem Knoten „example“ sind mit Shardwise ausgelieferte Beispiele: eigene Messungen des Projekts auf einer NVIDIA H200, jeweils mit der Vorhersage des Planers dafür.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n run(s) are published results (launcher “published”).</source>
        <translation>
            <numerusform>%n Lauf ist ein veröffentlichtes Ergebnis (Launcher „published“).</numerusform>
            <numerusform>%n Läufe sind veröffentlichte Ergebnisse (Launcher „published“).</numerusform>
        </translation>
    </message>
    <message>
        <source>They are read-only: they cannot be removed or edited as your own runs.</source>
        <translation>Sie sind schreibgeschützt: Anders als Ihre eigenen Läufe können sie weder entfernt noch bearbeitet werden.</translation>
    </message>
    <message>
        <source>Select one of your runs in the table to remove it with everything recorded for it.</source>
        <translation>Wählen Sie einen Ihrer Läufe in der Tabelle, um ihn mit allem, was zu ihm gespeichert ist, zu entfernen.</translation>
    </message>
    <message>
        <source>Run %1 is %2 run shipped with Shardwise: read-only, it cannot be removed.</source>
        <translation>Lauf %1 ist %2, der mit Shardwise ausgeliefert wird: schreibgeschützt, er kann nicht entfernt werden.</translation>
    </message>
    <message>
        <source>an example</source>
        <translation>ein Beispiellauf</translation>
    </message>
    <message>
        <source>a published</source>
        <translation>ein veröffentlichter Lauf</translation>
    </message>
    <message>
        <source>Remove run %1 with everything recorded for it.</source>
        <translation>Lauf %1 mit allem, was zu ihm gespeichert ist, entfernen.</translation>
    </message>
    <message>
        <source>Remove run</source>
        <translation>Lauf entfernen</translation>
    </message>
    <message>
        <source>Remove run %1 with everything recorded for it? This cannot be undone.</source>
        <translation>Lauf %1 mit allem, was zu ihm gespeichert ist, entfernen? Das kann nicht rückgängig gemacht werden.</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::RunQueueModel</name>
    <message>
        <source>Queued (%1)</source>
        <translation>Eingereiht (%1)</translation>
    </message>
    <message>
        <source>Running, step %1 of %2</source>
        <translation>Läuft, Schritt %1 von %2</translation>
    </message>
    <message>
        <source>Running</source>
        <translation>Läuft</translation>
    </message>
    <message numerus="yes">
        <source>%n rank(s)</source>
        <translation>
            <numerusform>%n Rang</numerusform>
            <numerusform>%n Ränge</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 + %2 steps</source>
        <extracomment>warm-up steps + timed steps of a queued run</extracomment>
        <translation>%1 + %2 Schritte</translation>
    </message>
    <message>
        <source>State</source>
        <translation>Zustand</translation>
    </message>
    <message>
        <source>Strategy</source>
        <translation>Strategie</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Modell</translation>
    </message>
    <message>
        <source>Ranks</source>
        <translation>Ränge</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>Schritte</translation>
    </message>
    <message>
        <source>Node</source>
        <translation>Knoten</translation>
    </message>
    <message>
        <source>Abandoning run %1</source>
        <translation>Lauf %1 wird aufgegeben</translation>
    </message>
    <message>
        <source>Queued (%1): abandon run %2</source>
        <translation>Wartend (%1): Lauf %2 aufgeben</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <comment>strategy (backend)</comment>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>The median step time so far times the steps left (warm-up and timed); estimated from two steps on.</source>
        <translation>Der bisherige Median der Schrittzeit mal die verbleibenden Schritte (Aufwärm- und gemessene Schritte); geschätzt ab zwei erledigten Schritten.</translation>
    </message>
    <message>
        <source>All its steps at the step time the plan predicted; unknown for a run without a prediction.</source>
        <translation>Alle seine Schritte mit der vom Plan vorhergesagten Schrittzeit; unbekannt für einen Lauf ohne Vorhersage.</translation>
    </message>
    <message>
        <source>Elapsed</source>
        <translation>Verstrichen</translation>
    </message>
    <message>
        <source>Time left</source>
        <extracomment>the time a run still needs</extracomment>
        <translation>Restzeit</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::RunRequestForm</name>
    <message>
        <source>The model presets could not be loaded: %1</source>
        <translation>Die Modellvorlagen konnten nicht geladen werden: %1</translation>
    </message>
    <message>
        <source>CPU (fp32, Gloo)</source>
        <translation>CPU (fp32, Gloo)</translation>
    </message>
    <message>
        <source>CUDA GPUs (bf16, NCCL)</source>
        <translation>CUDA-GPUs (bf16, NCCL)</translation>
    </message>
    <message>
        <source>CPU runs measure the sharding schedule, not GPU speed; CUDA needs a runner built with CUDA.</source>
        <translation>CPU-Läufe messen den Sharding-Ablauf, nicht die GPU-Geschwindigkeit; CUDA braucht einen mit CUDA gebauten Runner.</translation>
    </message>
    <message>
        <source>CUDA allocator with expandable segments</source>
        <translation>CUDA-Allocator mit erweiterbaren Segmenten</translation>
    </message>
    <message>
        <source>Sets expandable_segments:True: a diagnostic for fragmentation (a large reserved but unallocated amount at an out-of-memory error), not a cure.</source>
        <translation>Setzt expandable_segments:True: eine Diagnose für Fragmentierung (viel reservierter, aber nicht belegter Speicher beim Speicherfehler), keine Heilung.</translation>
    </message>
    <message>
        <source>&amp;Queue run</source>
        <translation>Lauf &amp;einreihen</translation>
    </message>
    <message>
        <source>&amp;Model:</source>
        <translation>&amp;Modell:</translation>
    </message>
    <message>
        <source>&amp;Strategy:</source>
        <translation>&amp;Strategie:</translation>
    </message>
    <message>
        <source>&amp;Device:</source>
        <translation>Gerä&amp;t:</translation>
    </message>
    <message>
        <source>N&amp;ode:</source>
        <translation>&amp;Knoten:</translation>
    </message>
    <message>
        <source>&amp;Ranks:</source>
        <translation>&amp;Ränge:</translation>
    </message>
    <message>
        <source>&amp;Warm-up:</source>
        <translation>A&amp;ufwärmen:</translation>
    </message>
    <message>
        <source>&amp;Timed:</source>
        <translation>&amp;Gemessen:</translation>
    </message>
    <message>
        <source>Sequence &amp;length:</source>
        <translation>Se&amp;quenzlänge:</translation>
    </message>
    <message>
        <source>Micro-&amp;batch:</source>
        <translation>Micro-&amp;Batch:</translation>
    </message>
    <message>
        <source>Where the ranks run: this machine, or an SSH node prepared on the Nodes page.</source>
        <translation>Wo die Ranks laufen: dieser Rechner oder ein auf der Seite „Knoten“ vorbereiteter SSH-Knoten.</translation>
    </message>
    <message>
        <source>Replay each step as a CUDA graph</source>
        <translation>Jeden Schritt als CUDA-Graph abspielen</translation>
    </message>
    <message>
        <source>The runner captures the whole step after two eager steps and replays it as one graph launch. Needs CUDA, a GPU-resident strategy (no CPU offload) and at least 3 warm-up steps.</source>
        <translation>Der Runner zeichnet nach zwei Schritten ohne Graph den ganzen Schritt auf und spielt ihn als einen Graphstart ab. Braucht CUDA, eine Strategie, deren Zustand auf der GPU bleibt (ohne CPU-Auslagerung), und mindestens 3 Aufwärmschritte.</translation>
    </message>
    <message>
        <source>What runs the ranks: Shardwise&apos;s runner, or PyTorch itself (DDP / FSDP2) to measure the framework the plan&apos;s fsdp2 target predicts.</source>
        <translation>Was die Ränge ausführt: Shardwise&apos; Runner oder PyTorch selbst (DDP / FSDP2), um das Framework zu messen, das das fsdp2-Ziel des Plans vorhersagt.</translation>
    </message>
    <message>
        <source>Compile each decoder layer (torch.compile)</source>
        <translation>Jede Decoder-Schicht kompilieren (torch.compile)</translation>
    </message>
    <message>
        <source>Bac&amp;kend:</source>
        <translation>Backe&amp;nd:</translation>
    </message>
    <message>
        <source>The torch backend runs eager or compiled steps, not CUDA graphs.</source>
        <translation>Das torch-Backend führt Schritte eager oder kompiliert aus, nicht als CUDA-Graphen.</translation>
    </message>
    <message>
        <source>torch.compile each decoder layer before the first step; the warm-up steps include the compilation.</source>
        <translation>torch.compile jede Decoder-Schicht vor dem ersten Schritt; die Aufwärmschritte enthalten die Kompilierung.</translation>
    </message>
    <message>
        <source>Only the torch backend runs PyTorch code to compile.</source>
        <translation>Nur das torch-Backend führt PyTorch-Code aus, den man kompilieren kann.</translation>
    </message>
    <message numerus="yes">
        <source>%n rank(s)</source>
        <translation>
            <numerusform>%n Rang</numerusform>
            <numerusform>%n Ränge</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n step(s)</source>
        <translation>
            <numerusform>%n Schritt</numerusform>
            <numerusform>%n Schritte</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n token(s)</source>
        <translation>
            <numerusform>%n Token</numerusform>
            <numerusform>%n Token</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n sequence(s)</source>
        <translation>
            <numerusform>%n Sequenz</numerusform>
            <numerusform>%n Sequenzen</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>shardwise::gui::RunTableModel</name>
    <message>
        <source>completed</source>
        <translation>abgeschlossen</translation>
    </message>
    <message>
        <source>out of memory</source>
        <translation>Speicher erschöpft</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>fehlgeschlagen</translation>
    </message>
    <message>
        <source>timed out</source>
        <translation>Zeit überschritten</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>abgebrochen</translation>
    </message>
    <message>
        <source>running</source>
        <translation>läuft</translation>
    </message>
    <message>
        <source>detached (running on its nodes)</source>
        <translation>abgekoppelt (läuft auf seinen Knoten weiter)</translation>
    </message>
    <message>
        <source>n/a</source>
        <translation>k. A.</translation>
    </message>
    <message>
        <source>none</source>
        <translation>keine</translation>
    </message>
    <message>
        <source>Check to include this run in the charts.</source>
        <translation>Anhaken, um diesen Lauf in die Diagramme aufzunehmen.</translation>
    </message>
    <message>
        <source>Measured over %1 timed steps after %2 warm-up steps. %3</source>
        <translation>Gemessen über %1 Schritte nach %2 Aufwärmschritten. %3</translation>
    </message>
    <message>
        <source>What the planner predicted for this configuration before it ran.</source>
        <translation>Was der Planer für diese Konfiguration vor dem Lauf vorhergesagt hat.</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>Lauf</translation>
    </message>
    <message>
        <source>Started</source>
        <translation>Gestartet</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Modell</translation>
    </message>
    <message>
        <source>Hardware</source>
        <translation>Hardware</translation>
    </message>
    <message>
        <source>Node</source>
        <translation>Knoten</translation>
    </message>
    <message>
        <source>Strategy</source>
        <translation>Strategie</translation>
    </message>
    <message>
        <source>Outcome</source>
        <translation>Ergebnis</translation>
    </message>
    <message>
        <source>Throughput</source>
        <translation>Durchsatz</translation>
    </message>
    <message>
        <source>Peak allocated</source>
        <translation>Spitze belegt</translation>
    </message>
    <message>
        <source>Peak reserved</source>
        <translation>Spitze reserviert</translation>
    </message>
    <message>
        <source>NCCL share</source>
        <translation>NCCL-Anteil</translation>
    </message>
    <message>
        <source>Predicted throughput</source>
        <translation>Vorhergesagter Durchsatz</translation>
    </message>
    <message>
        <source>The planner&apos;s prediction with its built-in (uncalibrated) coefficients.</source>
        <translation>Die Vorhersage des Planers mit seinen eingebauten (unkalibrierten) Koeffizienten.</translation>
    </message>
    <message>
        <source>The planner&apos;s prediction with the calibration the run store supports for this GPU (the line above the table names it). It is fitted to these same runs: in-sample.</source>
        <translation>Die Vorhersage des Planers mit der Kalibrierung, die der Laufspeicher für diese GPU hergibt (die Zeile über der Tabelle nennt sie). Sie ist an genau diese Läufe angepasst: in-sample.</translation>
    </message>
    <message>
        <source>(predicted - measured) / measured; positive means the prediction was too high.</source>
        <translation>(vorhergesagt - gemessen) / gemessen; positiv heißt, die Vorhersage war zu hoch.</translation>
    </message>
    <message>
        <source>Whether the prediction says the run fits in GPU memory; &quot;wrong&quot; where the outcome contradicts it (an out-of-memory run predicted to fit, or a completed one predicted not to).</source>
        <translation>Ob die Vorhersage sagt, dass der Lauf in den GPU-Speicher passt; „falsch“, wo das Ergebnis ihr widerspricht (ein Lauf mit Speichermangel, der passen sollte, oder ein abgeschlossener, der nicht passen sollte).</translation>
    </message>
    <message>
        <source>Presets throughput</source>
        <translation>Durchsatz (Presets)</translation>
    </message>
    <message>
        <source>Presets throughput error</source>
        <translation>Fehler Durchsatz (Presets)</translation>
    </message>
    <message>
        <source>Calibrated throughput</source>
        <translation>Durchsatz (kalibriert)</translation>
    </message>
    <message>
        <source>Calibrated throughput error</source>
        <translation>Fehler Durchsatz (kalibriert)</translation>
    </message>
    <message>
        <source>Presets peak</source>
        <translation>Spitze (Presets)</translation>
    </message>
    <message>
        <source>Presets peak error</source>
        <translation>Fehler Spitze (Presets)</translation>
    </message>
    <message>
        <source>Calibrated peak</source>
        <translation>Spitze (kalibriert)</translation>
    </message>
    <message>
        <source>Calibrated peak error</source>
        <translation>Fehler Spitze (kalibriert)</translation>
    </message>
    <message>
        <source>Presets verdict</source>
        <translation>Urteil (Presets)</translation>
    </message>
    <message>
        <source>Calibrated verdict</source>
        <translation>Urteil (kalibriert)</translation>
    </message>
    <message>
        <source>No prediction to compare: only completed or out-of-memory runs on a known GPU preset, with their configuration stored, are predicted.</source>
        <translation>Keine Vorhersage zum Vergleich: Vorhergesagt werden nur abgeschlossene oder an Speichermangel gescheiterte Läufe auf einem bekannten GPU-Preset, deren Konfiguration gespeichert ist.</translation>
    </message>
    <message>
        <source>Backend</source>
        <translation>Backend</translation>
    </message>
    <message>
        <source>What ran the ranks: native (Shardwise&apos;s runner) or torch (PyTorch&apos;s DDP / FSDP2).</source>
        <translation>Was die Ränge ausgeführt hat: native (Shardwise&apos; Runner) oder torch (PyTorchs DDP / FSDP2).</translation>
    </message>
    <message>
        <source>World</source>
        <translation>Welt</translation>
    </message>
    <message>
        <source>The ranks that ran; for a rehearsal, the world its one rank stood for.</source>
        <translation>Die Ränge, die liefen; bei einem Probelauf die Welt, für die sein einer Rang stand.</translation>
    </message>
    <message>
        <source>%1 Rank 0&apos;s at world %2 (rehearsal); predicted for world %2: %3.</source>
        <translation>%1 Der von Rang 0 bei Welt %2 (Probelauf); vorhergesagt für Welt %2: %3.</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>Präzision</translation>
    </message>
    <message>
        <source>The precision the run asked for; a run on the CPU computes in fp32 whatever it asked.</source>
        <translation>Die Präzision, die der Lauf angefordert hat; ein Lauf auf der CPU rechnet unabhängig davon in fp32.</translation>
    </message>
    <message>
        <source>Sequence</source>
        <translation>Sequenz</translation>
    </message>
    <message>
        <source>Tokens per sequence.</source>
        <translation>Token pro Sequenz.</translation>
    </message>
    <message>
        <source>Micro-batch</source>
        <translation>Micro-Batch</translation>
    </message>
    <message>
        <source>Sequences per rank in each step.</source>
        <translation>Sequenzen pro Rang in jedem Schritt.</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::RunsPage</name>
    <message>
        <source>&amp;Cancel</source>
        <translation>Abbre&amp;chen</translation>
    </message>
    <message>
        <source>Stops the selected run (its ranks get SIGTERM, then SIGKILL) or takes a queued one off the queue.</source>
        <translation>Stoppt den ausgewählten Lauf (seine Ränge erhalten SIGTERM, dann SIGKILL) oder nimmt einen eingereihten aus der Warteschlange.</translation>
    </message>
    <message>
        <source>R&amp;efresh</source>
        <translation>Aktua&amp;lisieren</translation>
    </message>
    <message>
        <source>New run</source>
        <translation>Neuer Lauf</translation>
    </message>
    <message>
        <source>Queue</source>
        <translation>Warteschlange</translation>
    </message>
    <message>
        <source>History</source>
        <translation>Verlauf</translation>
    </message>
    <message>
        <source>Ranks</source>
        <translation>Ränge</translation>
    </message>
    <message>
        <source>Log</source>
        <translation>Protokoll</translation>
    </message>
    <message>
        <source>Diagnosis</source>
        <translation>Diagnose</translation>
    </message>
    <message>
        <source>Adds the run to the queue; runs are measured one after another.</source>
        <translation>Reiht den Lauf ein; Läufe werden nacheinander gemessen.</translation>
    </message>
    <message>
        <source>shardwise-runner was not found: set SHARDWISE_RUNNER or install it beside this program.</source>
        <translation>shardwise-runner wurde nicht gefunden: SHARDWISE_RUNNER setzen oder ihn neben diesem Programm installieren.</translation>
    </message>
    <message>
        <source>The run cannot be queued: %1</source>
        <translation>Der Lauf kann nicht eingereiht werden: %1</translation>
    </message>
    <message numerus="yes">
        <source>Queued %1 on %2 with %n rank(s).</source>
        <translation>
            <numerusform>%1 auf %2 mit %n Rang eingereiht.</numerusform>
            <numerusform>%1 auf %2 mit %n Rängen eingereiht.</numerusform>
        </translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation>Breche ab…</translation>
    </message>
    <message>
        <source>The run history could not be read: %1</source>
        <translation>Der Laufverlauf konnte nicht gelesen werden: %1</translation>
    </message>
    <message>
        <source>Run %1 is still running.</source>
        <translation>Lauf %1 läuft noch.</translation>
    </message>
    <message>
        <source>Select a run that did not complete to see why.</source>
        <translation>Wählen Sie einen nicht abgeschlossenen Lauf, um den Grund zu sehen.</translation>
    </message>
    <message>
        <source>Run %1 is no longer stored.</source>
        <translation>Lauf %1 ist nicht mehr gespeichert.</translation>
    </message>
    <message>
        <source>Run %1 completed; there is nothing to diagnose.</source>
        <translation>Lauf %1 ist abgeschlossen; es gibt nichts zu diagnostizieren.</translation>
    </message>
    <message>
        <source>Run %1 ended as &quot;%2&quot; without a stored diagnosis. %3</source>
        <translation>Lauf %1 endete als „%2“ ohne gespeicherte Diagnose. %3</translation>
    </message>
    <message>
        <source>Run %1 could not be read: %2</source>
        <translation>Lauf %1 konnte nicht gelesen werden: %2</translation>
    </message>
    <message>
        <source>Run %1 has no stored configuration to rerun.</source>
        <translation>Lauf %1 hat keine gespeicherte Konfiguration zum Wiederholen.</translation>
    </message>
    <message>
        <source>Queued a rerun of run %1: %2</source>
        <translation>Wiederholung von Lauf %1 eingereiht: %2</translation>
    </message>
    <message>
        <source>Run %1 cannot be rerun: %2</source>
        <translation>Lauf %1 kann nicht wiederholt werden: %2</translation>
    </message>
    <message>
        <source>Re-&amp;attach</source>
        <translation>&amp;Wieder ankoppeln</translation>
    </message>
    <message>
        <source>Follows the selected detached run again: its ranks kept running on their SSH node, and what they wrote since is recorded into the same run.</source>
        <translation>Verfolgt den ausgewählten abgekoppelten Lauf wieder: Seine Ranks liefen auf ihrem SSH-Knoten weiter, und was sie seitdem geschrieben haben, wird in denselben Lauf aufgezeichnet.</translation>
    </message>
    <message>
        <source>Run %1 is not detached; only a detached run can be re-attached.</source>
        <translation>Lauf %1 ist nicht abgekoppelt; nur ein abgekoppelter Lauf kann wieder angekoppelt werden.</translation>
    </message>
    <message>
        <source>Re-attaching run %1 on %2.</source>
        <translation>Lauf %1 auf %2 wird wieder angekoppelt.</translation>
    </message>
    <message>
        <source>Run %1 cannot be re-attached: %2</source>
        <translation>Lauf %1 kann nicht wieder angekoppelt werden: %2</translation>
    </message>
    <message>
        <source>Aba&amp;ndon…</source>
        <translation>Au&amp;fgeben…</translation>
    </message>
    <message>
        <source>Abandon run %1</source>
        <translation>Lauf %1 aufgeben</translation>
    </message>
    <message>
        <source>Run %1 cannot be abandoned: %2</source>
        <translation>Lauf %1 kann nicht aufgegeben werden: %2</translation>
    </message>
    <message>
        <source>Gives up the selected detached run for good: its ranks still running are stopped on every node that answers, and it is kept as lost, no longer offered for re-attaching.</source>
        <translation>Gibt den gewählten abgekoppelten Lauf endgültig auf: Seine noch laufenden Ranks werden auf jedem Knoten gestoppt, der antwortet, und er wird als verloren gespeichert und nicht mehr zum Wiederankoppeln angeboten.</translation>
    </message>
    <message>
        <source>Abandon run %1? On every node of the run that answers, its ranks still running are stopped; the run is kept as lost and can no longer be re-attached.</source>
        <translation>Lauf %1 aufgeben? Auf jedem Knoten des Laufs, der antwortet, werden seine noch laufenden Ranks gestoppt; der Lauf wird als verloren gespeichert und kann nicht mehr wieder angekoppelt werden.</translation>
    </message>
    <message>
        <source>Run %1 is not detached; only a detached run can be abandoned.</source>
        <translation>Lauf %1 ist nicht abgekoppelt; nur ein abgekoppelter Lauf kann aufgegeben werden.</translation>
    </message>
    <message>
        <source>Abandoning run %1: stopping its ranks where its node answers.</source>
        <translation>Lauf %1 wird aufgegeben: Seine Ranks werden gestoppt, wo sein Knoten antwortet.</translation>
    </message>
    <message>
        <source>The queue is empty.</source>
        <translation>Die Warteschlange ist leer.</translation>
    </message>
    <message numerus="yes">
        <source>%n run(s) in the queue; time left unknown: a queued run carries no predicted step time.</source>
        <translation>
            <numerusform>%n Lauf in der Warteschlange; Restzeit unbekannt: Ein eingereihter Lauf hat keine vorhergesagte Schrittzeit.</numerusform>
            <numerusform>%n Läufe in der Warteschlange; Restzeit unbekannt: Ein eingereihter Lauf hat keine vorhergesagte Schrittzeit.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n run(s) in the queue; time left: %1.</source>
        <translation>
            <numerusform>%n Lauf in der Warteschlange; Restzeit: %1.</numerusform>
            <numerusform>%n Läufe in der Warteschlange; Restzeit: %1.</numerusform>
        </translation>
    </message>
    <message>
        <source>The running run has run for %1.</source>
        <translation>Der laufende Lauf läuft seit %1.</translation>
    </message>
    <message>
        <source>Run %1 ended as &quot;%2&quot;. %3</source>
        <extracomment>status line after a run failed: run id, how it ended, the diagnosis&apos;s headline</extracomment>
        <translation>Lauf %1 endete als „%2“. %3</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::SshNodeDialog</name>
    <message>
        <source>Add SSH node</source>
        <translation>SSH-Knoten hinzufügen</translation>
    </message>
    <message>
        <source>e.g. gpu-box-1</source>
        <translation>z. B. gpu-box-1</translation>
    </message>
    <message>
        <source>host name or IP address</source>
        <translation>Hostname oder IP-Adresse</translation>
    </message>
    <message>
        <source>SSH agent</source>
        <translation>SSH-Agent</translation>
    </message>
    <message>
        <source>Private key file</source>
        <translation>Datei des privaten Schlüssels</translation>
    </message>
    <message>
        <source>&amp;Browse…</source>
        <translation>&amp;Durchsuchen…</translation>
    </message>
    <message>
        <source>&amp;Name:</source>
        <translation>&amp;Name:</translation>
    </message>
    <message>
        <source>&amp;Host:</source>
        <translation>&amp;Host:</translation>
    </message>
    <message>
        <source>&amp;Port:</source>
        <translation>&amp;Port:</translation>
    </message>
    <message>
        <source>&amp;User:</source>
        <translation>&amp;Benutzer:</translation>
    </message>
    <message>
        <source>&amp;Authentication:</source>
        <translation>&amp;Authentifizierung:</translation>
    </message>
    <message>
        <source>&amp;Key file:</source>
        <translation>&amp;Schlüsseldatei:</translation>
    </message>
    <message>
        <source>Private key</source>
        <translation>Privater Schlüssel</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::WhatIfPanel</name>
    <message>
        <source>The values to plan, separated by commas (at most %1); every other setting is the form&apos;s.</source>
        <translation>Die zu planenden Werte, durch Kommas getrennt (höchstens %1); alle anderen Einstellungen sind die des Formulars.</translation>
    </message>
    <message>
        <source>Fits</source>
        <translation>Passt</translation>
    </message>
    <message>
        <source>Peak per GPU</source>
        <translation>Spitze je GPU</translation>
    </message>
    <message>
        <source>Tokens/s</source>
        <translation>Tokens/s</translation>
    </message>
    <message>
        <source>Columns:</source>
        <translation>Spalten:</translation>
    </message>
    <message>
        <source>Show:</source>
        <translation>Zeigen:</translation>
    </message>
    <message>
        <source>Rows:</source>
        <translation>Zeilen:</translation>
    </message>
    <message>
        <source>Sequence</source>
        <translation>Sequenz</translation>
    </message>
    <message>
        <source>Micro-batch</source>
        <translation>Micro-Batch</translation>
    </message>
    <message>
        <source>GPUs per node</source>
        <translation>GPUs je Knoten</translation>
    </message>
    <message>
        <source>Nodes</source>
        <translation>Knoten</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>Speicher</translation>
    </message>
    <message>
        <source>What if</source>
        <translation>Was wäre, wenn</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>%1: at most %2 values, got %3</source>
        <translation>%1: höchstens %2 Werte, erhalten %3</translation>
    </message>
    <message>
        <source>Cannot plan the grid: %1</source>
        <translation>Das Raster kann nicht geplant werden: %1</translation>
    </message>
    <message>
        <source>none</source>
        <translation>keine</translation>
    </message>
    <message>
        <source>Sequence %1, micro-batch %2, GPUs per node %3, nodes %4, world %5</source>
        <translation>Sequenz %1, Micro-Batch %2, GPUs je Knoten %3, Knoten %4, Welt %5</translation>
    </message>
    <message>
        <source>Recommended: %1</source>
        <translation>Empfohlen: %1</translation>
    </message>
    <message>
        <source>Nothing fits; the lowest peak is %1&apos;s</source>
        <translation>Nichts passt; die niedrigste Spitze hat %1</translation>
    </message>
    <message>
        <source>Peak per GPU: %1</source>
        <translation>Spitze je GPU: %1</translation>
    </message>
    <message>
        <source>Predicted: %1</source>
        <translation>Vorhergesagt: %1</translation>
    </message>
    <message>
        <source>Each cell names the recommended strategy: green where it fits, red where nothing fits. Hover a cell for its peak and tokens/s.</source>
        <translation>Jede Zelle nennt die empfohlene Strategie: grün, wo sie passt, rot, wo nichts passt. Für Spitze und Tokens/s mit der Maus über eine Zelle fahren.</translation>
    </message>
    <message>
        <source>The planned peak per GPU, the plan&apos;s one peak figure: a darker cell needs more. Red: nothing fits, the figure is the lowest peak of any strategy.</source>
        <translation>Die geplante Spitze je GPU, die eine Spitzenzahl des Plans: Eine dunklere Zelle braucht mehr. Rot: Nichts passt, die Zahl ist die niedrigste Spitze aller Strategien.</translation>
    </message>
    <message>
        <source>Predicted tokens/s of all GPUs together: a darker cell is faster. Red: nothing fits.</source>
        <translation>Vorhergesagte Tokens/s aller GPUs zusammen: Eine dunklere Zelle ist schneller. Rot: Nichts passt.</translation>
    </message>
    <message>
        <source>The form&apos;s own settings.</source>
        <translation>Die Einstellungen des Formulars selbst.</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::Workspace</name>
    <message>
        <source>unknown device</source>
        <translation>unbekanntes Gerät</translation>
    </message>
    <message>
        <source>%1 × %2</source>
        <translation>%1 × %2</translation>
    </message>
    <message>
        <source>NVLink</source>
        <translation>NVLink</translation>
    </message>
    <message>
        <source>PCIe</source>
        <translation>PCIe</translation>
    </message>
    <message>
        <source>, %1 nodes</source>
        <translation>, %1 Knoten</translation>
    </message>
    <message>
        <source>The process recording this run stopped answering; it was interrupted.</source>
        <translation>Der Prozess, der diesen Lauf aufzeichnete, antwortet nicht mehr; der Lauf wurde unterbrochen.</translation>
    </message>
    <message>
        <source>Cannot open the workspace %1: %2</source>
        <translation>Der Arbeitsbereich %1 kann nicht geöffnet werden: %2</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>unbekannt</translation>
    </message>
    <message>
        <source>PyTorch %1, Transformers %2 (model: %3), Python %4</source>
        <translation>PyTorch %1, Transformers %2 (Modell: %3), Python %4</translation>
    </message>
    <message>
        <source>not installed</source>
        <translation>nicht installiert</translation>
    </message>
    <message>
        <source>The example runs were not loaded: %1</source>
        <translation>Die Beispielläufe wurden nicht geladen: %1</translation>
    </message>
    <message>
        <source>There is no run %1 in this workspace.</source>
        <translation>In diesem Arbeitsbereich gibt es keinen Lauf %1.</translation>
    </message>
    <message>
        <source>Run %1 is an example shipped with Shardwise (measured by the project on an NVIDIA H200). Example and published runs are read-only: they cannot be removed.</source>
        <translation>Lauf %1 ist ein mit Shardwise ausgeliefertes Beispiel (vom Projekt auf einer NVIDIA H200 gemessen). Beispielläufe und veröffentlichte Läufe sind schreibgeschützt: Sie können nicht entfernt werden.</translation>
    </message>
    <message>
        <source>Run %1 could not be removed: %2</source>
        <translation>Lauf %1 konnte nicht entfernt werden: %2</translation>
    </message>
    <message>
        <source>%1: cannot be read</source>
        <translation>%1: kann nicht gelesen werden</translation>
    </message>
    <message numerus="yes">
        <source>Imported %n run(s) from %1.</source>
        <translation>
            <numerusform>%n Lauf aus %1 importiert.</numerusform>
            <numerusform>%n Läufe aus %1 importiert.</numerusform>
        </translation>
    </message>
    <message>
        <source>%1: %2; nothing was imported.</source>
        <translation>%1: %2; es wurde nichts importiert.</translation>
    </message>
</context>
</TS>
