<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="ja_JP">
<context>
    <name>BackendText</name>
    <message>
        <source>PyTorch (shardwise-torch-runner)</source>
        <translation>PyTorch (shardwise-torch-runner)</translation>
    </message>
    <message>
        <source>Native runner (shardwise-runner)</source>
        <translation>ネイティブランナー (shardwise-runner)</translation>
    </message>
    <message>
        <source>The PyTorch harness: DDP for zero0 and fully_shard (FSDP2) for the fsdp2 strategies, on a Transformers or plain PyTorch decoder. Needs python3 with torch where the ranks run.</source>
        <translation>PyTorch ハーネス: zero0 には DDP、fsdp2 戦略には fully_shard (FSDP2) を使い、Transformers または素の PyTorch のデコーダーで学習します。ランクを実行する場所に torch を import できる python3 が必要です。</translation>
    </message>
    <message>
        <source>Shardwise&apos;s own LibTorch runner: every strategy, over flat per-unit buffers.</source>
        <translation>Shardwise 独自の LibTorch ランナー: ユニットごとのフラットバッファですべての戦略を実行します。</translation>
    </message>
    <message>
        <source>PyTorch cannot express %1: the torch backend runs zero0 (DDP), fsdp2_noreshard, fsdp2_reshard and fsdp2_reshard_offload (fully_shard).</source>
        <translation>PyTorch では %1 を表現できません: torch バックエンドが実行するのは zero0 (DDP)、fsdp2_noreshard、fsdp2_reshard、fsdp2_reshard_offload (fully_shard) です。</translation>
    </message>
</context>
<context>
    <name>CaptionText</name>
    <message>
        <source>unknown</source>
        <translation>不明</translation>
    </message>
    <message>
        <source>Shardwise comparison (no runs selected)</source>
        <translation>Shardwise 比較（実行が選択されていません）</translation>
    </message>
    <message numerus="yes">
        <source>%1 on %2: %n run(s)</source>
        <translation>
            <numerusform>%1（%2）: %n 件の実行</numerusform>
        </translation>
    </message>
    <message>
        <source>Model: %1</source>
        <translation>モデル: %1</translation>
    </message>
    <message>
        <source>Hardware: %1</source>
        <translation>ハードウェア: %1</translation>
    </message>
    <message>
        <source>Software: %1</source>
        <translation>ソフトウェア: %1</translation>
    </message>
    <message>
        <source>Allocator: %1</source>
        <translation>アロケータ: %1</translation>
    </message>
    <message>
        <source>default</source>
        <translation>既定</translation>
    </message>
    <message>
        <source>#%1 %2</source>
        <translation>#%1 %2</translation>
    </message>
    <message>
        <source>Not completed (no measured throughput): %1</source>
        <translation>未完了（スループットの計測値なし）: %1</translation>
    </message>
    <message>
        <source>NCCL share counts collective kernel time that overlaps compute; it is not waiting time.</source>
        <translation>NCCL 比率は計算と重なる集団通信カーネルの時間を数えたもので、待ち時間ではありません。</translation>
    </message>
    <message>
        <source>Predictions: none of these runs has one (only completed or out-of-memory runs on a known GPU preset, with their configuration stored, are predicted).</source>
        <translation>予測: これらの実行にはいずれも予測がありません(予測されるのは、既知の GPU プリセット上で完了またはメモリ不足になり、構成が保存されている実行だけです)。</translation>
    </message>
    <message>
        <source>Predictions: presets = the planner&apos;s built-in coefficients; calibrated = fitted to the stored runs (in-sample); error = (predicted - measured) / measured.</source>
        <translation>予測: プリセット = プランナー組み込みの係数、キャリブレーション済み = 保存された実行に適合(インサンプル)、誤差 = (予測 - 実測) / 実測。</translation>
    </message>
    <message>
        <source>Measured vs predicted throughput — %1</source>
        <translation>実測と予測のスループット — %1</translation>
    </message>
    <message>
        <source>Backend: %1 (native = Shardwise&apos;s runner, torch = PyTorch DDP / FSDP2)</source>
        <translation>バックエンド: %1 (native = Shardwise のランナー、torch = PyTorch DDP / FSDP2)</translation>
    </message>
    <message>
        <source>#%1 %2, %3: precision %4, micro-batch %5, sequence %6 tokens, %7 warm-up + %8 timed steps</source>
        <translation>#%1 %2、%3: 精度 %4、マイクロバッチ %5、シーケンス %6 トークン、ウォームアップ %7 + 計測 %8 ステップ</translation>
    </message>
    <message>
        <source>Step time: the median of the timed steps.</source>
        <translation>ステップ時間: 計測ステップの中央値。</translation>
    </message>
    <message>
        <source>Memory results only (rehearsals: one rank alone as rank 0 of world N, its peaks against the prediction for world N per rank; no throughput): %1</source>
        <translation>メモリの結果のみ（リハーサル：1 ランクだけをワールド N のランク 0 として実行し、そのピークをワールド N の 1 ランクあたりの予測と比較。スループットなし）：%1</translation>
    </message>
</context>
<context>
    <name>ChartText</name>
    <message>
        <source>%1, %2: %3</source>
        <translation>%1、%2: %3</translation>
    </message>
    <message>
        <source>%1 (of %2 in all)</source>
        <translation>%1（合計 %2 のうち）</translation>
    </message>
    <message>
        <source>%1 — %2</source>
        <translation>%1 — %2</translation>
    </message>
    <message>
        <source>Throughput (tokens/s, higher is better)</source>
        <translation>スループット（トークン/秒、高いほど良い）</translation>
    </message>
    <message>
        <source>measured tokens/s</source>
        <translation>計測値 トークン/秒</translation>
    </message>
    <message>
        <source>tokens/s</source>
        <translation>トークン/秒</translation>
    </message>
    <message>
        <source>Peak memory per GPU (allocated vs reserved)</source>
        <translation>GPU あたりのピークメモリ（割り当て済み対予約済み）</translation>
    </message>
    <message>
        <source>peak allocated</source>
        <translation>ピーク割り当て</translation>
    </message>
    <message>
        <source>peak reserved</source>
        <translation>ピーク予約</translation>
    </message>
    <message>
        <source>GiB per GPU</source>
        <translation>GPU あたり GiB</translation>
    </message>
    <message>
        <source>Predicted vs measured throughput</source>
        <translation>予測スループット対計測スループット</translation>
    </message>
    <message>
        <source>predicted tokens/s</source>
        <translation>予測値 トークン/秒</translation>
    </message>
    <message>
        <source>Check runs in the table to compare them.</source>
        <translation>比較するには表の実行にチェックを入れてください。</translation>
    </message>
    <message>
        <source>No plan yet</source>
        <translation>まだプランがありません</translation>
    </message>
    <message>
        <source>Predicted memory per GPU: %1 on %2 x %3</source>
        <translation>GPU あたりの予測メモリ: %1（%2 × %3）</translation>
    </message>
    <message>
        <source>Tokens/s: measured vs predicted</source>
        <translation>トークン/秒: 実測と予測</translation>
    </message>
    <message>
        <source>measured</source>
        <translation>実測</translation>
    </message>
    <message>
        <source>presets</source>
        <translation>プリセット</translation>
    </message>
    <message>
        <source>calibrated</source>
        <translation>キャリブレーション済み</translation>
    </message>
    <message>
        <source>predicted peak allocated</source>
        <translation>予測ピーク割り当て</translation>
    </message>
    <message>
        <source>The checked runs are rehearsals: memory results only.</source>
        <translation>チェックした実行はリハーサルです：メモリの結果のみです。</translation>
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
        <translation>シーケンス長 %1</translation>
    </message>
    <message>
        <source>%1 × CPU</source>
        <translation>%1 × CPU</translation>
    </message>
    <message>
        <source>the GPU&apos;s memory</source>
        <translation>GPU メモリ</translation>
    </message>
    <message>
        <source>%1 — GPU memory %2</source>
        <translation>%1 — GPU メモリ %2</translation>
    </message>
    <message>
        <source>Communication share of step time: NCCL on GPUs, Gloo on CPUs (overlaps compute; not waiting time)</source>
        <translation>ステップ時間に占める通信比率: GPU は NCCL、CPU は Gloo（計算と重なる。待ち時間ではない）</translation>
    </message>
    <message>
        <source>communication share</source>
        <translation>通信比率</translation>
    </message>
    <message>
        <source>Gloo share, % of step time</source>
        <translation>Gloo 比率（ステップ時間の %）</translation>
    </message>
    <message>
        <source>NCCL kernel share, % of step time</source>
        <translation>NCCL カーネル比率（ステップ時間の %）</translation>
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
        <translation>推奨: %1</translation>
    </message>
    <message>
        <source>fastest that fits: %1</source>
        <translation>収まる中で最速: %1</translation>
    </message>
    <message>
        <source>no GPU memory: measured on the CPU</source>
        <translation>GPU メモリなし: CPU で測定</translation>
    </message>
    <message>
        <source>usable: %1</source>
        <translation>使用可能: %1</translation>
    </message>
</context>
<context>
    <name>CoreMessage</name>
    <message>
        <source>predicted peak %1 (%2 allocated + %3 CUDA context and NCCL) exceeds the usable %4 (the GPU&apos;s %5 less %6 headroom)</source>
        <translation>予測ピーク %1（割り当て %2 + CUDA コンテキストと NCCL %3）が使用可能な %4（GPU の %5 からヘッドルーム %6 を差し引いた量）を超えています</translation>
    </message>
    <message>
        <source>predicted peak %1 (%2 allocated + %3 CUDA context and NCCL) within the usable %4 (the GPU&apos;s %5 less %6 headroom)</source>
        <translation>予測ピーク %1（割り当て %2 + CUDA コンテキストと NCCL %3）は使用可能な %4（GPU の %5 からヘッドルーム %6 を差し引いた量）以内です</translation>
    </message>
    <message>
        <source>%1 does not fit: %2 by %3.</source>
        <translation>%1 は収まりません: %2。超過量は %3 です。</translation>
    </message>
    <message>
        <source>%1 does not fit in host memory: it needs %2 per node, %3 over the %4 usable.</source>
        <translation>%1 はホストメモリに収まりません: ノードあたり %2 が必要で、使用可能な %4 を %3 超えています。</translation>
    </message>
    <message>
        <source>%1 fits: %2, %3 to spare; predicted %4, step %5, MFU %6.</source>
        <translation>%1 は収まります: %2。余裕 %3、予測 %4、ステップ %5、MFU %6。</translation>
    </message>
    <message>
        <source>%1 fits: %2, %3 to spare; predicted %4, step %5, MFU %6. Host memory: %7 per node of %8 usable.</source>
        <translation>%1 は収まります: %2。余裕 %3、予測 %4、ステップ %5、MFU %6。ホストメモリ: ノードあたり %7（使用可能 %8）。</translation>
    </message>
    <message>
        <source>Planned for %1 %2: precision %3, activation checkpointing %4%5; the figures are what the framework allocates and how fast it runs at its defaults (docs/formulas.md, &quot;Framework targets&quot;).</source>
        <translation>%1 %2 向けに計画: 精度 %3、アクティベーションチェックポイント %4%5。数値はフレームワークが既定設定で確保するメモリと実行速度です（docs/formulas.md、&quot;Framework targets&quot;）。</translation>
    </message>
    <message>
        <source>off</source>
        <translation>オフ</translation>
    </message>
    <message>
        <source>, torch.compile on each decoder layer</source>
        <translation>、各デコーダ層に torch.compile</translation>
    </message>
    <message>
        <source>%1 would fit with Shardwise&apos;s runner (predicted peak %2) but not in %3 at its defaults (%4).</source>
        <translation>%1 は Shardwise のランナーなら収まります（予測ピーク %2）が、既定設定の %3 では収まりません（%4）。</translation>
    </message>
    <message>
        <source>DeepSpeed %1 keeps fp32 master weights, fp32 Adam moments and an fp32 gradient partition in %2 whatever bf16.enabled says: pure bf16 is planned there as bf16 with an fp32 master.</source>
        <translation>DeepSpeed %1 は bf16.enabled の設定にかかわらず、%2 で fp32 のマスター重み、fp32 の Adam モーメント、fp32 の勾配パーティションを保持します。そのため純粋な bf16 はそこでは fp32 マスター付きの bf16 として計画されます。</translation>
    </message>
    <message>
        <source>DeepSpeed %1 and later keep them in bf16 with bf16.bf16_master_weights_and_grads and bf16_optimizer_states (stages 1-3 without offload): plan for such a release to count that.</source>
        <translation>DeepSpeed %1 以降は bf16.bf16_master_weights_and_grads と bf16_optimizer_states によりこれらを bf16 で保持できます（オフロードなしのステージ 1-3）。これを反映するには、そのリリース向けに計画してください。</translation>
    </message>
    <message>
        <source>ZeRO-3&apos;s speed against PyTorch FSDP&apos;s full shard is uncertain: the plan predicts it at %1 fsdp2_reshard&apos;s tokens/s here, while published runs of one setup both ways range from %2 (Granite 7B on 4 x A100, Hugging Face blog, 2024) to %3 (Falcon-7B on 8 x A100 40GB, DeepSpeed issue 3901), both against FSDP1; DeepSpeed issue 5047 finds ZeRO-3 slower from one all-gather per small module, without figures.</source>
        <translation>PyTorch FSDP の完全シャーディングに対する ZeRO-3 の速度は不確かです。このプランはここで fsdp2_reshard のトークン/秒の %1 と予測していますが、同じ構成を両方で実行した公開結果は %2（4 x A100 上の Granite 7B、Hugging Face ブログ、2024）から %3（8 x A100 40GB 上の Falcon-7B、DeepSpeed issue 3901）まで幅があり、いずれも FSDP1 との比較です。DeepSpeed issue 5047 は、小さなモジュールごとに all-gather を 1 回行うため ZeRO-3 が遅いと報告していますが、数値はありません。</translation>
    </message>
    <message>
        <source>Step 1 decided: %1 is the lightest sharding that fits in GPU memory with headroom.</source>
        <translation>ステップ 1 で決定: %1 はヘッドルームを残して GPU メモリに収まる最も軽いシャーディングです。</translation>
    </message>
    <message>
        <source>With one GPU there is nothing to shard across: every strategy holds the whole state, and sharding only adds copies.</source>
        <translation>GPU が 1 基ではシャーディングする相手がありません。どの戦略も状態全体を保持し、シャーディングはコピーを増やすだけです。</translation>
    </message>
    <message>
        <source>Step 2 decided: no light sharding fits, so %1, %2&apos;s full shard, is chosen.</source>
        <translation>ステップ 2 で決定: 軽いシャーディングは収まらないため、%2 の完全シャーディングである %1 を選びます。</translation>
    </message>
    <message>
        <source>Step 2 decided: no light sharding fits, so full sharding is chosen by the interconnect (%1).</source>
        <translation>ステップ 2 で決定: 軽いシャーディングは収まらないため、インターコネクト（%1）に応じて完全シャーディングを選びます。</translation>
    </message>
    <message>
        <source>On NVLink the FSDP2-style full shard (fsdp2_reshard) was faster than ZeRO-3 in the reference benchmark.</source>
        <translation>NVLink では、参照ベンチマークで FSDP2 方式の完全シャーディング（fsdp2_reshard）が ZeRO-3 より高速でした。</translation>
    </message>
    <message>
        <source>On PCIe the ZeRO-3 style was faster in the reference benchmark, but only with the allocator&apos;s expandable segments; measure both full shards on this hardware.</source>
        <translation>PCIe では参照ベンチマークで ZeRO-3 方式が高速でしたが、アロケータの expandable segments を使った場合に限ります。このハードウェアで両方の完全シャーディングを測定してください。</translation>
    </message>
    <message>
        <source>%1, the rule&apos;s choice, does not fit (short by %2), so %3 is recommended.</source>
        <translation>規則が選ぶ %1 は収まらない（%2 不足）ため、%3 を推奨します。</translation>
    </message>
    <message>
        <source>Expandable segments are on, as the ZeRO-3 style needed on PCIe in the reference.</source>
        <translation>参照で ZeRO-3 方式が PCIe 上で必要としたとおり、expandable segments が有効です。</translation>
    </message>
    <message>
        <source>Run it with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (--expandable-segments): in the reference the ZeRO-3 style completed on PCIe only with it.</source>
        <translation>PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True（--expandable-segments）で実行してください。参照では ZeRO-3 方式は PCIe 上でこれを使った場合にのみ完走しました。</translation>
    </message>
    <message>
        <source>The rule reads the link inside a node; across the %1 nodes the network (%2 per node) bounds both full shards&apos; collectives.</source>
        <translation>この規則はノード内のリンクを見ています。%1 ノードにまたがる場合は、ネットワーク（ノードあたり %2）が両方の完全シャーディングの集団通信を制約します。</translation>
    </message>
    <message>
        <source>Step 3 decided: nothing fits without CPU offload, so %1, the lightest offload that fits, is the last resort.</source>
        <translation>ステップ 3 で決定: CPU オフロードなしでは何も収まらないため、収まる最も軽いオフロードである %1 が最後の手段です。</translation>
    </message>
    <message>
        <source>Against %1, offload is predicted to cut the GPU peak by %2 and throughput by %3; in the reference benchmark CPU offload cut peak memory by roughly 40-65 % and throughput by roughly 3-9x.</source>
        <translation>%1 と比べて、オフロードは GPU ピークを %2 削減し、スループットを %3 低下させると予測されます。参照ベンチマークでは CPU オフロードによりピークメモリは約 40-65 % 減り、スループットは約 3-9 分の 1 になりました。</translation>
    </message>
    <message>
        <source>No strategy fits on %1 x %2 with micro-batch %3 and sequence %4.</source>
        <translation>%1 x %2、マイクロバッチ %3、シーケンス長 %4 では、どの戦略も収まりません。</translation>
    </message>
    <message>
        <source>Closest: %1</source>
        <translation>最も近いもの: %1</translation>
    </message>
    <message>
        <source>Neither more GPUs, shorter sequences, a smaller micro-batch nor activation checkpointing makes any strategy fit within the searched ranges; a GPU with more memory is needed.</source>
        <translation>GPU の追加、シーケンスの短縮、マイクロバッチの縮小、アクティベーションチェックポイントのいずれでも、探索範囲内で収まる戦略はありません。より多くのメモリを持つ GPU が必要です。</translation>
    </message>
    <message>
        <source>Validate with a short run of the same model, precision, micro-batch, sequence length and GPU count before a long run.</source>
        <translation>長時間の実行の前に、同じモデル、精度、マイクロバッチ、シーケンス長、GPU 数で短い実行を行って検証してください。</translation>
    </message>
    <message>
        <source>With activation checkpointing %1 would fit, at about a third more compute per step.</source>
        <translation>アクティベーションチェックポイントを使えば %1 が収まります。ステップあたりの計算量は約 3 分の 1 増えます。</translation>
    </message>
    <message>
        <source>With %1 GPUs (%2 nodes of %3) %4 would fit.</source>
        <translation>GPU %1 基（%3 基のノード %2 台）なら %4 が収まります。</translation>
    </message>
    <message>
        <source>With %1 GPUs (%2 nodes of %3) and activation checkpointing %4 would fit.</source>
        <translation>GPU %1 基（%3 基のノード %2 台）とアクティベーションチェックポイントで %4 が収まります。</translation>
    </message>
    <message>
        <source>With sequences of %1 tokens %2 would fit.</source>
        <translation>シーケンス長 %1 トークンなら %2 が収まります。</translation>
    </message>
    <message>
        <source>With sequences of %1 tokens and activation checkpointing %2 would fit.</source>
        <translation>シーケンス長 %1 トークンとアクティベーションチェックポイントで %2 が収まります。</translation>
    </message>
    <message>
        <source>With micro-batch %1 %2 would fit (raise gradient accumulation to keep the global batch).</source>
        <translation>マイクロバッチ %1 なら %2 が収まります（グローバルバッチを保つには勾配累積を増やしてください）。</translation>
    </message>
    <message>
        <source>With micro-batch %1 and activation checkpointing %2 would fit (raise gradient accumulation to keep the global batch).</source>
        <translation>マイクロバッチ %1 とアクティベーションチェックポイントで %2 が収まります（グローバルバッチを保つには勾配累積を増やしてください）。</translation>
    </message>
    <message>
        <source>%1 is predicted %2 faster than %3 (%4 against %5), beyond the predictions&apos; %6 error: %7. %8</source>
        <translation>%1 は %3 より %2 高速と予測されます（%4 対 %5）。これは予測誤差 %6 を超えています: %7。%8</translation>
    </message>
    <message>
        <source>The decision order keeps the lightest that fits, as heavier sharding brought no evidence of a speed-up in the reference benchmark; measure both.</source>
        <translation>参照ベンチマークでは重いシャーディングで高速化の証拠が得られなかったため、判断順序は収まる最も軽いものを維持します。両方を測定してください。</translation>
    </message>
    <message>
        <source>The recommendation stays the decision order&apos;s; measure both.</source>
        <translation>推奨は判断順序のとおりです。両方を測定してください。</translation>
    </message>
    <message>
        <source>%1 is also predicted the fastest that fits; next is %2 at %3 against %4.</source>
        <translation>%1 は収まるものの中で最速とも予測されます。次点は %2 で %3（対 %4）です。</translation>
    </message>
    <message>
        <source>The fastest other strategy that fits, %1, is predicted at %2 against %3 for %4 (%5 faster), within the predictions&apos; %6 error; heavier sharding brought no evidence of a speed-up in the reference benchmark.</source>
        <translation>収まる他の戦略で最速の %1 は %2 と予測され、%4 の %3 より %5 高速ですが、予測誤差 %6 の範囲内です。参照ベンチマークでは重いシャーディングで高速化の証拠は得られませんでした。</translation>
    </message>
    <message>
        <source>it shards the optimizer step across the %1 GPUs, %2 per step against %3</source>
        <translation>オプティマイザステップを %1 基の GPU に分散し、ステップあたり %2（対 %3）</translation>
    </message>
    <message>
        <source>its optimizer step takes %1 against %2</source>
        <translation>オプティマイザステップが %1（対 %2）</translation>
    </message>
    <message>
        <source>less of its communication is left exposed, %1 per step against %2</source>
        <translation>隠れずに残る通信が少なく、ステップあたり %1（対 %2）</translation>
    </message>
    <message>
        <source>its per-parameter step overhead (flat-buffer copies, casts) is %1 against %2</source>
        <translation>パラメータごとのステップのオーバーヘッド（フラットバッファのコピー、型変換）が %1（対 %2）</translation>
    </message>
    <message>
        <source>its forward and backward take %1 per step against %2</source>
        <translation>順伝播と逆伝播がステップあたり %1（対 %2）</translation>
    </message>
    <message>
        <source>its exposed host copies take %1 per step against %2</source>
        <translation>隠れないホストコピーがステップあたり %1（対 %2）</translation>
    </message>
    <message>
        <source>its CPU optimizer step adds %1 to a step against %2</source>
        <translation>CPU オプティマイザステップがステップに %1 を加える（対 %2）</translation>
    </message>
    <message>
        <source>presets</source>
        <translation>プリセット</translation>
    </message>
    <message>
        <source>probe of node %1</source>
        <translation>ノード %1 の計測</translation>
    </message>
    <message>
        <source>%1 + %2</source>
        <translation>%1 + %2</translation>
    </message>
    <message>
        <source>%1; %2</source>
        <translation>%1、%2</translation>
    </message>
    <message>
        <source> at %1</source>
        <translation>（%1）</translation>
    </message>
    <message>
        <source> at %1 (time of the nearest logged line)</source>
        <translation>（%1、最も近い記録行の時刻）</translation>
    </message>
    <message>
        <source> at %1 (%2&apos;s clock, offset %3; %4 on the reference clock)</source>
        <translation>（%1、%2 の時計、オフセット %3、基準時計では %4）</translation>
    </message>
    <message>
        <source> at %1 (%2&apos;s clock, offset %3; %4 on the reference clock) (time of the nearest logged line)</source>
        <translation>（%1、%2 の時計、オフセット %3、基準時計では %4）（最も近い記録行の時刻）</translation>
    </message>
    <message>
        <source>the node</source>
        <translation>そのノード</translation>
    </message>
    <message>
        <source>the program</source>
        <translation>プログラム</translation>
    </message>
    <message>
        <source>rank %1</source>
        <translation>ランク %1</translation>
    </message>
    <message>
        <source>rank %1 on %2</source>
        <translation>%2 のランク %1</translation>
    </message>
    <message>
        <source>the launcher</source>
        <translation>ランチャー</translation>
    </message>
    <message>
        <source>the launcher on %1</source>
        <translation>%1 のランチャー</translation>
    </message>
    <message>
        <source>Every rank with a known exit code exited 0.</source>
        <translation>終了コードが分かっているランクはすべて 0 で終了しました。</translation>
    </message>
    <message>
        <source>No exit codes or run summaries were given, so completion itself is not confirmed.</source>
        <translation>終了コードも実行サマリーもないため、完了そのものは確認できていません。</translation>
    </message>
    <message>
        <source>The first failure: %1 — %2%3.</source>
        <translation>最初の障害: %1 — %2%3。</translation>
    </message>
    <message>
        <source>Host memory ran out, not GPU memory: CPU offload and data loading live there.</source>
        <translation>GPU メモリではなくホストメモリが不足しました。CPU オフロードとデータ読み込みはそこを使います。</translation>
    </message>
    <message>
        <source>It tried to allocate %1.</source>
        <translation>%1 を確保しようとしました。</translation>
    </message>
    <message>
        <source>It tried to allocate %1 with %2 free.</source>
        <translation>空き %2 の状態で %1 を確保しようとしました。</translation>
    </message>
    <message>
        <source>It tried to allocate %1 of %2.</source>
        <translation>合計 %2 のうち %1 を確保しようとしました。</translation>
    </message>
    <message>
        <source>It tried to allocate %1 with %2 free of %3.</source>
        <translation>合計 %3 のうち空き %2 の状態で %1 を確保しようとしました。</translation>
    </message>
    <message>
        <source>%1 was reserved by PyTorch but unallocated — more than the failed request, so fragmentation of the caching allocator is likely.</source>
        <translation>%1 が PyTorch に予約されたまま未使用でした。失敗した要求より多いため、キャッシュアロケータの断片化が疑われます。</translation>
    </message>
    <message>
        <source>%1 was reserved by PyTorch but unallocated, less than the request: this is not fragmentation, the model state does not fit.</source>
        <translation>%1 が PyTorch に予約されたまま未使用でしたが、要求より少ないため断片化ではありません。モデルの状態が収まりません。</translation>
    </message>
    <message>
        <source>Expandable segments were already on, so the allocator flag will not help.</source>
        <translation>expandable segments はすでに有効だったため、アロケータの設定では解決しません。</translation>
    </message>
    <message>
        <source>Its last line (%1:%2) was: &quot;%3&quot;.</source>
        <translation>最後の行（%1:%2）: 「%3」。</translation>
    </message>
    <message>
        <source>%1 stopped at start-up because its argument parser rejected &quot;%2&quot;.</source>
        <translation>%1 は引数パーサーが「%2」を拒否したため起動時に停止しました。</translation>
    </message>
    <message>
        <source>The ranks never met, so no training step ran.</source>
        <translation>ランク同士が合流できなかったため、学習ステップは 1 つも実行されていません。</translation>
    </message>
    <message>
        <source>No primary failure was found: only symptoms (%1 on ranks %2).</source>
        <translation>一次的な障害は見つからず、症状のみでした（ランク %2 の %1）。</translation>
    </message>
    <message>
        <source>These follow a failure or a hang elsewhere; the cause left no error in these records.</source>
        <translation>これらは別の場所での障害またはハングの結果です。原因はこれらの記録にエラーを残していません。</translation>
    </message>
    <message>
        <source>SeqNum %1 on ranks %2</source>
        <translation>ランク %2 の SeqNum %1</translation>
    </message>
    <message>
        <source>The ranks timed out in different collectives (%1): they are out of step, e.g. a data-dependent branch skipped a collective on some ranks.</source>
        <translation>ランクは異なる集団通信でタイムアウトしました（%1）。足並みがずれています。たとえば、データに依存する分岐が一部のランクで集団通信を飛ばしました。</translation>
    </message>
    <message>
        <source>Ranks %1 reported neither the hang nor an error of their own: look at them first.</source>
        <translation>ランク %1 はハングも自身のエラーも報告していません。まずこれらを確認してください。</translation>
    </message>
    <message>
        <source>%1 on ranks %2</source>
        <translation>ランク %2 の %1</translation>
    </message>
    <message>
        <source>It is the first of %1 failures across the run.</source>
        <translation>これは実行全体で %1 件ある障害の最初のものです。</translation>
    </message>
    <message>
        <source>It is the first of %1 failures across the run; the symptoms that followed (%2) are consequences of it, not causes.</source>
        <translation>これは実行全体で %1 件ある障害の最初のものです。その後の症状（%2）はこの障害の結果であり、原因ではありません。</translation>
    </message>
    <message>
        <source>Check host memory on %1: offloaded optimizer state and parameters live there; use fewer ranks per node or nodes with more RAM.</source>
        <translation>%1 のホストメモリを確認してください。オフロードしたオプティマイザ状態とパラメータはそこにあります。ノードあたりのランク数を減らすか、RAM の多いノードを使ってください。</translation>
    </message>
    <message>
        <source>Rerun once with %1 as a diagnostic: if it then fits, fragmentation was the problem and memory is still tight; if it still runs out of memory, the flag is not the fix.</source>
        <translation>診断として %1 で一度だけ再実行してください。それで収まれば原因は断片化で、メモリはまだ逼迫しています。それでもメモリ不足なら、この設定は解決策ではありません。</translation>
    </message>
    <message>
        <source>PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (PYTORCH_ALLOC_CONF in newer PyTorch)</source>
        <translation>PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True（新しい PyTorch では PYTORCH_ALLOC_CONF）</translation>
    </message>
    <message>
        <source>Shard deeper: %1 → %2 (%3)</source>
        <translation>より深くシャーディング: %1 → %2（%3）</translation>
    </message>
    <message>
        <source>If the deepest sharding still does not fit, offload to the CPU: %1 (cut peak GPU memory by roughly 40–65% and throughput by roughly 3–9x in the reference benchmark).</source>
        <translation>最も深いシャーディングでも収まらない場合は CPU にオフロードしてください: %1（参照ベンチマークではピーク GPU メモリが約 40–65% 減り、スループットは約 3–9 分の 1 になりました）。</translation>
    </message>
    <message>
        <source>%1 already offloads to the CPU: use more GPUs, a smaller micro-batch or a shorter sequence length.</source>
        <translation>%1 はすでに CPU にオフロードしています。GPU を増やすか、マイクロバッチを小さくするか、シーケンス長を短くしてください。</translation>
    </message>
    <message>
        <source>Shard deeper: the next ZeRO stage (zero1 → zero2 → zero3) or FSDP2 with reshard_after_forward=True (fsdp2_reshard).</source>
        <translation>より深くシャーディング: 次の ZeRO ステージ（zero1 → zero2 → zero3）、または reshard_after_forward=True の FSDP2（fsdp2_reshard）。</translation>
    </message>
    <message>
        <source>If the deepest sharding still does not fit, offload to the CPU (zero2_offload, zero3_offload or fsdp2_reshard_offload), at a large cost in throughput.</source>
        <translation>最も深いシャーディングでも収まらない場合は CPU にオフロードしてください（zero2_offload、zero3_offload、fsdp2_reshard_offload）。スループットは大きく下がります。</translation>
    </message>
    <message>
        <source>%1 stopped emitting events while its peers waited for it in a collective: it was stopped (SIGSTOP, Ctrl-Z, a debugger), stuck (in I/O, data loading, a deadlock) or its node froze; the peers&apos; timeouts are the consequence, not a network fault. While it hangs, `ps -o stat= -p &lt;pid&gt;` (T = stopped, D = waiting on I/O) and `py-spy dump --pid &lt;pid&gt;` / `gdb -p &lt;pid&gt;` show where it is.</source>
        <translation>%1 は、ピアが集団通信で待っている間にイベントの送信を止めました。停止された（SIGSTOP、Ctrl-Z、デバッガ）、詰まった（I/O、データ読み込み、デッドロック）、またはノードがフリーズしたかのいずれかです。ピアのタイムアウトはその結果であり、ネットワーク障害ではありません。ハング中は `ps -o stat= -p &lt;pid&gt;`（T = 停止、D = I/O 待ち）と `py-spy dump --pid &lt;pid&gt;` / `gdb -p &lt;pid&gt;` でどこにいるかが分かります。</translation>
    </message>
    <message>
        <source>The dispatcher lost %1: check whether it is up (reboot, preemption, network partition) before rerunning; its kernel log and the cloud&apos;s preemption and maintenance events say why.</source>
        <translation>ディスパッチャが %1 を見失いました。再実行の前に稼働しているか確認してください（再起動、プリエンプション、ネットワーク分断）。理由はカーネルログとクラウドのプリエンプション・メンテナンスイベントで分かります。</translation>
    </message>
    <message>
        <source>The kernel&apos;s OOM killer ended it: host memory on %1 ran out. CPU offload, pinned buffers and data-loader workers use host memory: reduce them or use a node with more RAM.</source>
        <translation>カーネルの OOM キラーが終了させました。%1 のホストメモリが不足しました。CPU オフロード、ピン留めバッファ、データローダーのワーカーはホストメモリを使います。これらを減らすか、RAM の多いノードを使ってください。</translation>
    </message>
    <message>
        <source>SIGKILL (exit code 137) is what the kernel&apos;s OOM killer, a preemption or maintenance event, or an operator&apos;s kill -9 look like: on %1 look at `journalctl -k` / `dmesg -T` for &quot;Out of memory: Killed process&quot;, and at the cloud&apos;s preemption and maintenance events.</source>
        <translation>SIGKILL（終了コード 137）は、カーネルの OOM キラー、プリエンプションやメンテナンスイベント、またはオペレーターの kill -9 によるものです。%1 で `journalctl -k` / `dmesg -T` に &quot;Out of memory: Killed process&quot; がないか、またクラウドのプリエンプション・メンテナンスイベントを確認してください。</translation>
    </message>
    <message>
        <source>torchrun always passes the local rank in the LOCAL_RANK environment variable and has no --use_env option: remove --use_env / --use-env from the command line.</source>
        <translation>torchrun はローカルランクを常に環境変数 LOCAL_RANK で渡し、--use_env オプションはありません。コマンドラインから --use_env / --use-env を削除してください。</translation>
    </message>
    <message>
        <source>The launcher appended %1. Either accept it in the script (argparse: parser.add_argument(&quot;--local-rank&quot;, &quot;--local_rank&quot;, type=int, default=int(os.environ.get(&quot;LOCAL_RANK&quot;, 0)))), or stop the launcher from passing it: torchrun never passes it and sets LOCAL_RANK instead; python -m torch.distributed.launch stops with --use-env (--use_env before PyTorch 2.0); DeepSpeed&apos;s launcher stops with --no_local_rank.</source>
        <translation>ランチャーが %1 を付け加えました。スクリプトで受け付ける（argparse: parser.add_argument(&quot;--local-rank&quot;, &quot;--local_rank&quot;, type=int, default=int(os.environ.get(&quot;LOCAL_RANK&quot;, 0))))か、ランチャーに渡させないようにしてください。torchrun は渡さず、代わりに LOCAL_RANK を設定します。python -m torch.distributed.launch は --use-env（PyTorch 2.0 より前は --use_env）で、DeepSpeed のランチャーは --no_local_rank で渡さなくなります。</translation>
    </message>
    <message>
        <source>Remove &quot;%1&quot; from the command line or add it to %2&apos;s argument parser.</source>
        <translation>コマンドラインから「%1」を削除するか、%2 の引数パーサーに追加してください。</translation>
    </message>
    <message>
        <source>Check that MASTER_ADDR:MASTER_PORT is reachable from every node (firewall, the address of the right interface), that every node was started, and that all use the same port and world size.</source>
        <translation>MASTER_ADDR:MASTER_PORT がすべてのノードから到達可能か（ファイアウォール、正しいインターフェースのアドレス）、すべてのノードが起動したか、全ノードが同じポートとワールドサイズを使っているかを確認してください。</translation>
    </message>
    <message>
        <source>Rerun with NCCL_DEBUG=INFO to see the failing call. Common causes: the wrong network interface (set NCCL_SOCKET_IFNAME), a firewall between the nodes, too little /dev/shm in a container (test with NCCL_SHM_DISABLE=1), InfiniBand set-up (test with NCCL_IB_DISABLE=1), different NCCL versions on the nodes.</source>
        <translation>NCCL_DEBUG=INFO で再実行して失敗した呼び出しを確認してください。よくある原因: 誤ったネットワークインターフェース（NCCL_SOCKET_IFNAME を設定）、ノード間のファイアウォール、コンテナ内の /dev/shm 不足（NCCL_SHM_DISABLE=1 で試す）、InfiniBand の設定（NCCL_IB_DISABLE=1 で試す）、ノード間で異なる NCCL バージョン。</translation>
    </message>
    <message>
        <source>Look at ranks %1 first: they never reported the hang, so they are the likely culprits (stuck in another collective, in data loading or I/O, or gone without a trace); check their nodes for killed processes.</source>
        <translation>まずランク %1 を確認してください。ハングを報告していないため、原因である可能性が高いです（別の集団通信、データ読み込み、I/O で詰まっているか、痕跡なく消えた）。それらのノードで強制終了されたプロセスがないか確認してください。</translation>
    </message>
    <message>
        <source>Rerun with NCCL_DEBUG=INFO, TORCH_NCCL_TRACE_BUFFER_SIZE=2000 and TORCH_NCCL_DUMP_ON_TIMEOUT=1 (PyTorch&apos;s NCCL flight recorder) and TORCH_NCCL_DESYNC_DEBUG=1; while it hangs, `py-spy dump --pid &lt;pid&gt;` on every rank shows where each one waits.</source>
        <translation>NCCL_DEBUG=INFO、TORCH_NCCL_TRACE_BUFFER_SIZE=2000、TORCH_NCCL_DUMP_ON_TIMEOUT=1（PyTorch の NCCL フライトレコーダー）と TORCH_NCCL_DESYNC_DEBUG=1 で再実行してください。ハング中は各ランクで `py-spy dump --pid &lt;pid&gt;` を実行すると、それぞれがどこで待っているかが分かります。</translation>
    </message>
    <message>
        <source>Fix the run configuration and rerun: %1</source>
        <translation>実行設定を修正して再実行してください: %1</translation>
    </message>
    <message>
        <source>Read %1&apos;s error in full.</source>
        <translation>%1 のエラーを全文読んでください。</translation>
    </message>
    <message>
        <source>Read %1&apos;s error in full (%2).</source>
        <translation>%1 のエラーを全文読んでください（%2）。</translation>
    </message>
    <message numerus="yes">
        <source>No failure was recognised in %n record(s).</source>
        <translation>
            <numerusform>%n 件の記録に障害は見つかりませんでした。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n rank(s) reported a run summary.</source>
        <translation>
            <numerusform>%n ランクが実行サマリーを報告しました。</numerusform>
        </translation>
    </message>
    <message>
        <source>No failure carries a time; the root cause is chosen by kind (a failure that needs no other failure to happen comes first), not by order.</source>
        <translation>時刻を持つ障害がないため、根本原因は順序ではなく種類で選ばれます（他の障害がなくても起こる障害が優先されます）。</translation>
    </message>
    <message>
        <source>The %1 on %2 happened %3 before the first primary failure (%4), more than the clock uncertainty of %5, so that failure cannot have caused it.</source>
        <translation>%2 の %1 は最初の一次障害（%4）の %3 前に起きており、時計の不確かさ %5 を超えているため、その障害が原因ではありえません。</translation>
    </message>
    <message>
        <source>Other primary failures lie within the clock uncertainty of the root cause; give the nodes&apos; clock offsets (meta.json &quot;nodes&quot;: {&quot;&lt;node&gt;&quot;: {&quot;clock_offset_s&quot;: ...}}) to order them for certain.</source>
        <translation>根本原因の時計の不確かさの範囲内に他の一次障害があります。確実に順序付けるには、ノードの時計オフセット（meta.json &quot;nodes&quot;: {&quot;&lt;node&gt;&quot;: {&quot;clock_offset_s&quot;: ...}}）を指定してください。</translation>
    </message>
    <message>
        <source>The earliest-looking primary failure (%1, %2) is of a kind that a failure elsewhere often provokes, and another primary failure lies within the clock uncertainty; the failure that needs no other failure to happen was preferred.</source>
        <translation>最も早く見える一次障害（%1、%2）は他所の障害で引き起こされやすい種類で、時計の不確かさの範囲内に別の一次障害があります。他の障害がなくても起こる障害を優先しました。</translation>
    </message>
    <message numerus="yes">
        <source>%n primary failure(s) carry no time and could not be ordered against the root cause.</source>
        <translation>
            <numerusform>%n 件の一次障害は時刻を持たず、根本原因との前後関係を決められませんでした。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n run(s)</source>
        <translation>
            <numerusform>%n 回の実行</numerusform>
        </translation>
    </message>
    <message>
        <source>%1x</source>
        <translation>%1 倍</translation>
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
        <translation>メモリ不足</translation>
    </message>
    <message>
        <source>Rank or node lost</source>
        <translation>ランクまたはノードの喪失</translation>
    </message>
    <message>
        <source>Collective watchdog timeout</source>
        <translation>集団通信のウォッチドッグタイムアウト</translation>
    </message>
    <message>
        <source>Launcher arguments</source>
        <translation>ランチャー引数</translation>
    </message>
    <message>
        <source>Communication error</source>
        <translation>通信エラー</translation>
    </message>
    <message>
        <source>Configuration rejected</source>
        <translation>設定が拒否されました</translation>
    </message>
    <message>
        <source>Other failure</source>
        <translation>その他の失敗</translation>
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
        <translation>%1 トークン/秒</translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation>%1 %</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 ミリ秒</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>No sharding: every rank holds full parameters, gradients and optimizer state; gradients are all-reduced.</source>
        <translation>シャーディングなし: 各ランクがパラメータ、勾配、オプティマイザ状態をすべて保持し、勾配は all-reduce されます。</translation>
    </message>
    <message>
        <source>Optimizer state sharded across ranks.</source>
        <translation>オプティマイザ状態をランク間でシャーディング。</translation>
    </message>
    <message>
        <source>Optimizer state and gradients sharded; gradients are reduce-scattered.</source>
        <translation>オプティマイザ状態と勾配をシャーディングし、勾配は reduce-scatter されます。</translation>
    </message>
    <message>
        <source>Optimizer state, gradients and parameters sharded; parameters are all-gathered per layer for forward and again for backward.</source>
        <translation>オプティマイザ状態、勾配、パラメータをシャーディングし、パラメータはレイヤーごとに順伝播で all-gather され、逆伝播で再び all-gather されます。</translation>
    </message>
    <message>
        <source>ZeRO-2 with optimizer state and the optimizer step on the CPU; full parameters stay on every GPU.</source>
        <translation>オプティマイザ状態とオプティマイザステップを CPU に置いた ZeRO-2。完全なパラメータは各 GPU に残ります。</translation>
    </message>
    <message>
        <source>ZeRO-3 with optimizer state and the optimizer step on the CPU.</source>
        <translation>オプティマイザ状態とオプティマイザステップを CPU に置いた ZeRO-3。</translation>
    </message>
    <message>
        <source>FSDP2 with reshard_after_forward=False: parameters gathered in forward stay gathered through backward.</source>
        <translation>reshard_after_forward=False の FSDP2: 順伝播で集めたパラメータを逆伝播まで保持します。</translation>
    </message>
    <message>
        <source>FSDP2 with reshard_after_forward=True: parameters are freed after each layer&apos;s forward and gathered again for its backward.</source>
        <translation>reshard_after_forward=True の FSDP2: 各レイヤーの順伝播後にパラメータを解放し、逆伝播のために再び集めます。</translation>
    </message>
    <message>
        <source>FSDP2 reshard with parameters, gradients and optimizer state in CPU memory and the optimizer step on the CPU.</source>
        <translation>パラメータ、勾配、オプティマイザ状態を CPU メモリに置き、オプティマイザステップを CPU で行う FSDP2 reshard。</translation>
    </message>
    <message>
        <source>Peak memory per GPU: the most the caching allocator holds for tensors at any moment of a step (parameters, gradients, optimizer state, activations and communication buffers).</source>
        <translation>GPU あたりのピークメモリ: ステップ中のある時点でキャッシングアロケータがテンソル用に保持する最大量（パラメータ、勾配、オプティマイザ状態、活性化、通信バッファ）。</translation>
    </message>
    <message>
        <source>Tokens per second over all GPUs, from the median step time of the timed steps after warm-up.</source>
        <translation>全 GPU 合計の毎秒トークン数。ウォームアップ後の計測ステップの中央値ステップ時間から算出します。</translation>
    </message>
    <message>
        <source>Model FLOPs utilisation: the training FLOPs the model needs per second at this throughput, divided by the GPUs&apos; dense bf16 peak. 6 x parameters x tokens for forward and backward.</source>
        <translation>モデル FLOPs 使用率: このスループットでモデルが毎秒必要とする学習 FLOPs を GPU の密 bf16 ピーク性能で割った値。順伝播と逆伝播で 6 × パラメータ数 × トークン数。</translation>
    </message>
    <message>
        <source>NCCL share: time the collective kernels run, divided by the step time. Communication kernels overlap compute, so this is not the time spent waiting; a high share can still cost nothing when it is hidden behind computation.</source>
        <translation>NCCL 比率: 集団通信カーネルの実行時間をステップ時間で割った値。通信カーネルは計算と重なるため、これは待ち時間ではありません。計算の裏に隠れていれば、高い比率でもコストがかからないことがあります。</translation>
    </message>
    <message>
        <source>Reserved: memory the caching allocator holds from the driver, allocated or not. Reserved far above allocated means fragmentation; expandable_segments:True can reduce it.</source>
        <translation>予約済み: キャッシングアロケータがドライバから確保しているメモリ（割り当て済みかどうかを問わない）。予約済みが割り当て済みを大きく上回るのは断片化を意味し、expandable_segments:True で減らせます。</translation>
    </message>
    <message>
        <source>rehearsal of %1</source>
        <extracomment>the world of a run that ran one rank alone as rank 0 of a world of N ranks</extracomment>
        <translation>%1 のリハーサル</translation>
    </message>
    <message>
        <source>A rehearsal measures memory only: one rank ran alone as rank 0 of world %1 through a communicator that moves no data, so its peaks are one rank&apos;s at world %1, and its steps hold no communication: it has no tokens/s, step time or NCCL share of world %1.</source>
        <translation>リハーサルはメモリのみを測定します：1 ランクだけが、データを転送しないコミュニケーターを通じてワールド %1 のランク 0 として実行されたため、そのピークはワールド %1 での 1 ランクのものです。ステップには通信が含まれないため、ワールド %1 のトークン/秒、ステップ時間、NCCL 比率はありません。</translation>
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
        <translation>%1 時間 %2 分</translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <extracomment>a duration: minutes and seconds</extracomment>
        <translation>%1 分 %2 秒</translation>
    </message>
    <message>
        <source>%1 s</source>
        <extracomment>a duration: seconds</extracomment>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>estimating…</source>
        <extracomment>time left of a run with fewer than two steps done</extracomment>
        <translation>推定中…</translation>
    </message>
    <message>
        <source>unknown</source>
        <extracomment>time left of a run nothing predicted</extracomment>
        <translation>不明</translation>
    </message>
    <message>
        <source>about %1 (predicted)</source>
        <translation>約 %1（予測）</translation>
    </message>
    <message>
        <source>about %1</source>
        <translation>約 %1</translation>
    </message>
</context>
<context>
    <name>ExportText</name>
    <message>
        <source>%1: the chart has no size to render</source>
        <translation>%1: グラフに描画できるサイズがありません</translation>
    </message>
    <message>
        <source>%1: cannot write the PNG file (%2); the previous file is kept</source>
        <translation>%1: PNG ファイルを書き込めません (%2)。以前のファイルはそのまま残ります</translation>
    </message>
    <message>
        <source>%1: cannot write the SVG file</source>
        <translation>%1: SVG ファイルを書き込めません</translation>
    </message>
    <message>
        <source>%1: cannot write the SVG file (%2); the previous file is kept</source>
        <translation>%1: SVG ファイルを書き込めません (%2)。以前のファイルはそのまま残ります</translation>
    </message>
    <message>
        <source>%1: cannot write the PDF file</source>
        <translation>%1: PDF ファイルを書き込めません</translation>
    </message>
    <message>
        <source>%1: cannot write the PDF file (%2); the previous file is kept</source>
        <translation>%1: PDF ファイルを書き込めません (%2)。以前のファイルはそのまま残ります</translation>
    </message>
    <message>
        <source>%1: unknown chart format &quot;%2&quot;; use one of: %3</source>
        <translation>%1: 不明なグラフ形式「%2」です。次のいずれかを使ってください: %3</translation>
    </message>
    <message>
        <source>%1: unknown table format &quot;%2&quot;; use one of: %3</source>
        <translation>%1: 不明な表形式「%2」です。次のいずれかを使ってください: %3</translation>
    </message>
    <message>
        <source>%1: cannot write: %2</source>
        <translation>%1: 書き込めません: %2</translation>
    </message>
</context>
<context>
    <name>PageCatalog</name>
    <message>
        <source>Plan</source>
        <translation>プラン</translation>
    </message>
    <message>
        <source>Build a configuration and follow the decision order to a recommendation</source>
        <translation>構成を組み立て、判断順序に従って推奨を得る</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>比較</translation>
    </message>
    <message>
        <source>Chart measured runs side by side and export the charts for a report</source>
        <translation>計測した実行を並べてグラフ化し、レポート用にエクスポートする</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>実行</translation>
    </message>
    <message>
        <source>Queue measured runs, watch every rank live and see why a failed run failed</source>
        <translation>計測する実行をキューに入れ、各ランクをライブで見て、失敗した実行の原因を確認する</translation>
    </message>
    <message>
        <source>Nodes</source>
        <translation>ノード</translation>
    </message>
    <message>
        <source>Add this machine and SSH nodes, check their host keys and see their GPUs and software</source>
        <translation>このマシンと SSH ノードを追加し、ホスト鍵を確認し、GPU とソフトウェアを確認する</translation>
    </message>
    <message>
        <source>Cloud</source>
        <translation>クラウド</translation>
    </message>
    <message>
        <source>Prepare GPU capacity on GKE for the current plan: checklist, commands and Job manifest</source>
        <translation>現在のプランのために GKE の GPU 容量を準備: チェックリスト、コマンド、Job マニフェスト</translation>
    </message>
</context>
<context>
    <name>PlanText</name>
    <message>
        <source>parameters</source>
        <translation>パラメータ</translation>
    </message>
    <message>
        <source>gradients</source>
        <translation>勾配</translation>
    </message>
    <message>
        <source>optimizer state</source>
        <translation>オプティマイザ状態</translation>
    </message>
    <message>
        <source>gathered parameters</source>
        <translation>集約済みパラメータ</translation>
    </message>
    <message>
        <source>activations</source>
        <translation>活性化</translation>
    </message>
    <message>
        <source>logits and loss</source>
        <translation>ロジットと損失</translation>
    </message>
    <message>
        <source>communication buffers</source>
        <translation>通信バッファ</translation>
    </message>
    <message>
        <source>kernel workspaces</source>
        <translation>カーネル作業領域</translation>
    </message>
    <message>
        <source>allocator cache</source>
        <translation>アロケータのキャッシュ</translation>
    </message>
    <message>
        <source>CUDA context and NCCL</source>
        <translation>CUDA コンテキストと NCCL</translation>
    </message>
    <message>
        <source>%1 short by %2</source>
        <translation>%1 は %2 不足</translation>
    </message>
    <message>
        <source>Does not fit the GPU: short by %1.</source>
        <translation>GPU に収まりません: %1 不足。</translation>
    </message>
    <message>
        <source>Does not fit host memory: short by %1 per node.</source>
        <translation>ホストメモリに収まりません: ノードあたり %1 不足。</translation>
    </message>
    <message>
        <source>Lightest sharding that fits</source>
        <translation>収まる最も軽いシャーディング</translation>
    </message>
    <message>
        <source>Full sharding, chosen by interconnect</source>
        <translation>インターコネクトで選ぶ完全シャーディング</translation>
    </message>
    <message>
        <source>CPU offload last</source>
        <translation>CPU オフロードは最後に</translation>
    </message>
    <message>
        <source>No light strategy fits the usable %1 per GPU: %2.</source>
        <translation>GPU あたり使用可能な %1 に収まる軽い戦略はありません: %2。</translation>
    </message>
    <message>
        <source>No full-sharding strategy without offload fits: %1.</source>
        <translation>オフロードなしの完全シャーディング戦略は収まりません: %1。</translation>
    </message>
    <message>
        <source>Even with CPU offload nothing fits.</source>
        <translation>CPU オフロードを使っても収まるものはありません。</translation>
    </message>
    <message>
        <source>Not needed: step %1 decided.</source>
        <translation>不要: ステップ %1 で決定しました。</translation>
    </message>
    <message>
        <source>the recommendation</source>
        <translation>推奨</translation>
    </message>
    <message>
        <source>the decision order says to measure it as well</source>
        <translation>判断順序によりこれも計測する</translation>
    </message>
    <message>
        <source>checks that heavier sharding brings no speed-up</source>
        <translation>より重いシャーディングで高速化しないことの確認</translation>
    </message>
    <message>
        <source>Recommended: %1 (decided by step %2).</source>
        <translation>推奨: %1（ステップ %2 で決定）。</translation>
    </message>
    <message>
        <source>Nothing fits. %1</source>
        <translation>収まるものがありません。%1</translation>
    </message>
    <message>
        <source>%1 with torch.compile</source>
        <translation>%1(torch.compile あり)</translation>
    </message>
    <message>
        <source>%1 cannot run %2: %3</source>
        <translation>%1 では %2 を実行できません: %3</translation>
    </message>
    <message>
        <source>it is an FSDP2 setup; plan for PyTorch FSDP2 or torchtitan.</source>
        <translation>FSDP2 の構成です。PyTorch FSDP2 または torchtitan 向けに計画してください。</translation>
    </message>
    <message>
        <source>it is a DeepSpeed ZeRO stage; plan for DeepSpeed.</source>
        <translation>DeepSpeed の ZeRO ステージです。DeepSpeed 向けに計画してください。</translation>
    </message>
    <message>
        <source>Planned for %1.</source>
        <translation>%1 向けの計画です。</translation>
    </message>
    <message>
        <source>predicted faster than the recommendation beyond the prediction&apos;s error</source>
        <translation>推奨より予測の誤差を超えて速いと予測</translation>
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
        <translation>高</translation>
    </message>
    <message>
        <source>medium</source>
        <translation>中</translation>
    </message>
    <message>
        <source>low</source>
        <translation>低</translation>
    </message>
    <message>
        <source>GPU %1: calibration from %2, confidence %3 (%4)</source>
        <translation>GPU %1: キャリブレーション元 %2、信頼度 %3 (%4)</translation>
    </message>
    <message>
        <source>; in-sample residuals: tokens/s median %1, worst %2; peak median %3, worst %4</source>
        <translation>、インサンプル残差: トークン/秒 中央値 %1、最大 %2、ピーク 中央値 %3、最大 %4</translation>
    </message>
    <message>
        <source>fits</source>
        <translation>収まる</translation>
    </message>
    <message>
        <source>does not fit</source>
        <translation>収まらない</translation>
    </message>
    <message>
        <source>%1 (wrong)</source>
        <translation>%1 (誤り)</translation>
    </message>
</context>
<context>
    <name>QuitText</name>
    <message>
        <source>Run %1 on %2 goes on running there after Shardwise quits; re-attach it from the Runs page when you start Shardwise again.</source>
        <translation>%2 上の実行 %1 は Shardwise の終了後もそこで動き続けます。Shardwise を再び起動したら、実行ページから再接続してください。</translation>
    </message>
    <message>
        <source>A run is starting on %1: quitting now may stop it before it is recorded.</source>
        <translation>%1 で実行が開始中です。今終了すると、記録される前に停止する場合があります。</translation>
    </message>
    <message>
        <source>Run %1 on this machine is stopped and kept as cancelled.</source>
        <translation>このマシン上の実行 %1 は停止され、キャンセルとして保存されます。</translation>
    </message>
    <message>
        <source>A run is starting on this machine: quitting now stops it.</source>
        <translation>このマシンで実行が開始中です。今終了すると停止します。</translation>
    </message>
    <message>
        <source>Queued runs that will not start: %1.</source>
        <translation>開始されない待機中の実行: %1。</translation>
    </message>
</context>
<context>
    <name>ReportText</name>
    <message>
        <source>decided</source>
        <translation>決定</translation>
    </message>
    <message>
        <source>passed</source>
        <translation>通過</translation>
    </message>
    <message>
        <source>not reached</source>
        <translation>未到達</translation>
    </message>
    <message>
        <source>%1 on %2 × %3 (%4)</source>
        <translation>%1 (%2 × %3、%4)</translation>
    </message>
    <message>
        <source>, %1 nodes</source>
        <translation>、%1 ノード</translation>
    </message>
    <message>
        <source>Predicted peak memory per GPU: %1</source>
        <translation>GPU あたりの予測ピークメモリ: %1</translation>
    </message>
    <message>
        <source>%1: cannot write (%2); the previous file is kept</source>
        <translation>%1: 書き込めません (%2)。以前のファイルは保持されます</translation>
    </message>
    <message>
        <source>Shardwise plan: %1</source>
        <translation>Shardwise プラン: %1</translation>
    </message>
    <message>
        <source>- Framework target: %1</source>
        <translation>- 対象フレームワーク: %1</translation>
    </message>
    <message>
        <source>- GPU memory %1, usable %2 after %3 headroom: what each peak is weighed against</source>
        <translation>- GPU メモリ %1、余裕 %3 を除く使用可能量 %2: 各ピークの比較対象</translation>
    </message>
    <message>
        <source>- Written %1</source>
        <translation>- 作成 %1</translation>
    </message>
    <message>
        <source>Recommendation</source>
        <translation>推奨</translation>
    </message>
    <message>
        <source>Decision order</source>
        <translation>決定順序</translation>
    </message>
    <message>
        <source>Candidates</source>
        <translation>候補</translation>
    </message>
    <message>
        <source>strategy</source>
        <translation>戦略</translation>
    </message>
    <message>
        <source>fits</source>
        <translation>収まる</translation>
    </message>
    <message>
        <source>peak per GPU</source>
        <translation>GPU あたりのピーク</translation>
    </message>
    <message>
        <source>headroom</source>
        <translation>余裕</translation>
    </message>
    <message>
        <source>tokens/s</source>
        <translation>トークン/秒</translation>
    </message>
    <message>
        <source>step time</source>
        <translation>ステップ時間</translation>
    </message>
    <message>
        <source>note</source>
        <translation>注記</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>はい</translation>
    </message>
    <message>
        <source>no</source>
        <translation>いいえ</translation>
    </message>
    <message>
        <source>Runs worth validating</source>
        <translation>検証すべき実行</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>メモリ</translation>
    </message>
    <message>
        <source>The figures as numbers: [%1](%1) (bytes, seconds, tokens per second).</source>
        <translation>数値データ: [%1](%1) (バイト、秒、トークン/秒)。</translation>
    </message>
    <message>
        <source>Target: %1; memory per GPU; tokens/s for the whole job.</source>
        <translation>対象: %1。メモリは GPU あたり、トークン/秒はジョブ全体。</translation>
    </message>
    <message>
        <source>Nothing to report: the plan has no candidates yet.</source>
        <translation>レポートする内容がありません: プランにまだ候補がありません。</translation>
    </message>
    <message>
        <source>%1: cannot create the folder</source>
        <translation>%1: フォルダーを作成できません</translation>
    </message>
    <message>
        <source>Each bar stacks the parts of a strategy&apos;s peak; the dashed line is the usable capacity (%1 of %2, after %3 headroom); the star marks the recommendation, the triangle the fastest strategy that fits. Target: %4.</source>
        <translation>各棒は戦略のピークの内訳を積み上げたもの。破線は使用可能容量 (%2 のうち %1、余裕 %3 を除く)。星印は推奨、三角印は収まる中で最速の戦略。対象: %4。</translation>
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
        <translation>不明</translation>
    </message>
    <message>
        <source>%1: cannot write (%2); the previous file is kept</source>
        <translation>%1: 書き込めません (%2)。以前のファイルは保持されます</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>実行</translation>
    </message>
    <message>
        <source>Setup</source>
        <translation>設定</translation>
    </message>
    <message>
        <source>Measured</source>
        <translation>測定値</translation>
    </message>
    <message>
        <source>Predicted throughput</source>
        <translation>予測スループット</translation>
    </message>
    <message>
        <source>Predicted memory</source>
        <translation>予測メモリ</translation>
    </message>
    <message>
        <source>%1: cannot write the caption (%2); the table was written</source>
        <translation>%1: キャプションを書き込めません (%2)。表は書き込まれました</translation>
    </message>
</context>
<context>
    <name>StartupText</name>
    <message>
        <source>%1: cannot create the folder</source>
        <translation>%1: フォルダを作成できません</translation>
    </message>
    <message>
        <source>%1: cannot write the screenshot</source>
        <translation>%1: スクリーンショットを書き込めません</translation>
    </message>
    <message>
        <source>Plan, measure and compare training-state sharding on your own GPUs.</source>
        <translation>自分の GPU で学習状態のシャーディングを計画、計測、比較します。</translation>
    </message>
    <message>
        <source>Open the run store FILE instead of the default workspace.</source>
        <translation>既定のワークスペースの代わりに実行ストア FILE を開きます。</translation>
    </message>
    <message>
        <source>FILE</source>
        <translation>FILE</translation>
    </message>
    <message>
        <source>Render every page to DIR/&lt;page&gt;.png and DIR/&lt;page&gt;-dark.png, then exit.</source>
        <translation>すべてのページを DIR/&lt;page&gt;.png と DIR/&lt;page&gt;-dark.png に描画して終了します。</translation>
    </message>
    <message>
        <source>DIR</source>
        <translation>DIR</translation>
    </message>
    <message>
        <source>User interface language (en, de, ja); default: the system&apos;s.</source>
        <translation>ユーザーインターフェースの言語（en、de、ja）。既定はシステムの言語。</translation>
    </message>
    <message>
        <source>LANG</source>
        <translation>LANG</translation>
    </message>
    <message>
        <source>system, light or dark; default: the last choice in View &gt; Appearance.</source>
        <translation>system、light、dark のいずれか。既定は「表示 &gt; 外観」で最後に選んだもの。</translation>
    </message>
    <message>
        <source>SCHEME</source>
        <translation>SCHEME</translation>
    </message>
    <message>
        <source>--color-scheme: &quot;%1&quot; is not one of system, light, dark</source>
        <translation>--color-scheme: 「%1」は system、light、dark のいずれでもありません</translation>
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
        <translation>%1（推奨）</translation>
    </message>
    <message>
        <source>fits</source>
        <translation>収まる</translation>
    </message>
    <message>
        <source>short by %1</source>
        <translation>%1 不足</translation>
    </message>
    <message>
        <source>Predicted peak leaves %1 of the usable %2 free.</source>
        <translation>予測ピークでは使用可能な %2 のうち %1 が空きます。</translation>
    </message>
    <message>
        <source>Predicted peak exceeds the usable %1 (GPU memory minus headroom) by %2.</source>
        <translation>予測ピークは使用可能な %1（GPU メモリから余裕分を引いたもの）を %2 超えます。</translation>
    </message>
    <message>
        <source>Predicted. %1</source>
        <translation>予測値。%1</translation>
    </message>
    <message>
        <source>Strategy</source>
        <translation>戦略</translation>
    </message>
    <message>
        <source>Fits</source>
        <translation>収まるか</translation>
    </message>
    <message>
        <source>Peak / GPU</source>
        <translation>ピーク / GPU</translation>
    </message>
    <message>
        <source>Throughput</source>
        <translation>スループット</translation>
    </message>
    <message>
        <source>MFU</source>
        <translation>MFU</translation>
    </message>
    <message>
        <source>NCCL share</source>
        <translation>NCCL 比率</translation>
    </message>
    <message>
        <source>The sharding strategy; the recommended one is shown in bold.</source>
        <translation>シャーディング戦略。推奨は太字で表示されます。</translation>
    </message>
    <message>
        <source>host RAM short by %1</source>
        <translation>ホスト RAM が %1 不足</translation>
    </message>
    <message>
        <source>Fits the GPU, but its state in host memory, %1 per node, exceeds the usable %2 of the node&apos;s RAM by %3.</source>
        <translation>GPU には収まりますが、ホストメモリ上の状態（ノードあたり %1）がノードの RAM のうち使用可能な %2 を %3 超えます。</translation>
    </message>
    <message>
        <source>Host memory: %1 per node of the usable %2.</source>
        <translation>ホストメモリ: 使用可能な %2 のうちノードあたり %1。</translation>
    </message>
    <message>
        <source>Whether the predicted peak fits the GPU&apos;s memory with the planner&apos;s headroom and, for CPU offload, whether its state fits the node&apos;s usable host memory.</source>
        <translation>予測ピークがプランナーの余裕分を含めて GPU メモリに収まるかどうか、また CPU オフロードではその状態がノードの使用可能なホストメモリに収まるかどうか。</translation>
    </message>
    <message>
        <source>%1 (not in %2)</source>
        <translation>%1(%2 では不可)</translation>
    </message>
    <message>
        <source>%1 allocated + %2 CUDA context and NCCL.</source>
        <translation>割り当て %1 + CUDA コンテキストと NCCL %2。</translation>
    </message>
    <message>
        <source>Predicted peak per GPU: the most the step allocates at once plus the CUDA context and NCCL&apos;s buffers. It fits when it is at most the usable %1 (the GPU&apos;s %2 less %3 headroom). The allocator&apos;s unused cache is not counted: PyTorch frees it before it reports out of memory.</source>
        <translation>GPU あたりの予測ピーク: ステップが一度に割り当てる最大量に CUDA コンテキストと NCCL のバッファを加えたもの。使用可能な %1（GPU の %2 から余裕分 %3 を引いたもの）以下なら収まります。アロケータの未使用キャッシュは含めません: PyTorch はメモリ不足を報告する前にそれを解放します。</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::ChartPanel</name>
    <message>
        <source>The planner&apos;s prediction beside the measurement. Runs measured on a CPU carry no prediction: the planner predicts GPUs.</source>
        <translation>プランナーの予測と計測値の比較。CPU で計測した実行には予測がありません（プランナーは GPU を予測します）。</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::ChecklistModel</name>
    <message>
        <source>warn</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>check</source>
        <translation>要確認</translation>
    </message>
    <message>
        <source>Confirm with:</source>
        <translation>確認コマンド:</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状態</translation>
    </message>
    <message>
        <source>Preflight item</source>
        <translation>事前チェック項目</translation>
    </message>
    <message>
        <source>planned</source>
        <translation>予定</translation>
    </message>
    <message>
        <source>Planned: the prepared commands take care of this when you run them; nothing has been created or checked yet.</source>
        <translation>予定: 用意したコマンドを実行すると満たされます。まだ何も作成・確認されていません。</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::CloudPage</name>
    <message>
        <source>&amp;Region:</source>
        <translation>リージョン(&amp;R):</translation>
    </message>
    <message>
        <source>Google Cloud regions with at least one zone that lists the plan&apos;s GPU (from the dated GKE table; the gcloud commands confirm it live)</source>
        <translation>プランの GPU を提供するゾーンが少なくとも 1 つある Google Cloud リージョン(日付付きの GKE 表より。gcloud コマンドで現在の状況を確認できます)</translation>
    </message>
    <message>
        <source>Use current plan</source>
        <translation>現在のプランを使用</translation>
    </message>
    <message>
        <source>Read the plan the Plan page shows now: model, GPU, GPUs per node, nodes and training</source>
        <translation>「プラン」ページが現在表示しているプラン(モデル、GPU、ノードあたりの GPU 数、ノード数、学習設定)を読み込みます</translation>
    </message>
    <message>
        <source>Preflight checklist: pass = the commands below take care of it, warn = a risk they cannot remove, check = confirm it in your project first. Hover a row for the reason and the command that confirms it.</source>
        <translation>事前チェックリスト: 合格 = 下のコマンドで対応済み、警告 = コマンドでは取り除けないリスク、要確認 = 先にプロジェクトで確認が必要。行にカーソルを合わせると理由と確認用コマンドが表示されます。</translation>
    </message>
    <message>
        <source>gcloud commands</source>
        <translation>gcloud コマンド</translation>
    </message>
    <message>
        <source>kubectl commands</source>
        <translation>kubectl コマンド</translation>
    </message>
    <message>
        <source>Job manifest</source>
        <translation>Job マニフェスト</translation>
    </message>
    <message>
        <source>Quota, zone and version checks, then the regional cluster and the GPU node pool</source>
        <translation>割り当て・ゾーン・バージョンの確認、続いてリージョン クラスタと GPU ノードプールの作成</translation>
    </message>
    <message>
        <source>Credentials, starting the Job, watching nodes and pods, logs, clean-up</source>
        <translation>認証情報、Job の開始、ノードと Pod の監視、ログ、後片付け</translation>
    </message>
    <message>
        <source>A headless Service and an Indexed Job running shardwise-runner on every planned GPU</source>
        <translation>ヘッドレス Service と、計画したすべての GPU で shardwise-runner を実行する Indexed Job</translation>
    </message>
    <message>
        <source>&amp;Copy</source>
        <translation>コピー(&amp;C)</translation>
    </message>
    <message>
        <source>Copy the visible commands or manifest to the clipboard</source>
        <translation>表示中のコマンドまたはマニフェストをクリップボードにコピー</translation>
    </message>
    <message>
        <source>&amp;Save…</source>
        <translation>保存(&amp;S)…</translation>
    </message>
    <message>
        <source>Save the visible commands or manifest to a file</source>
        <translation>表示中のコマンドまたはマニフェストをファイルに保存</translation>
    </message>
    <message>
        <source>Plan: %1 on %2 × %3 (%4 node(s) × %5 GPU(s)), %6</source>
        <translation>プラン: %1、%2 × %3 (%4 ノード × %5 GPU)、%6</translation>
    </message>
    <message>
        <source>strategy %1 (the plan&apos;s recommendation)</source>
        <translation>戦略 %1 (プランの推奨)</translation>
    </message>
    <message>
        <source>no strategy fits</source>
        <translation>収まる戦略なし</translation>
    </message>
    <message>
        <source>Plan: not valid</source>
        <translation>プラン: 無効</translation>
    </message>
    <message>
        <source>The plan cannot be read: %1</source>
        <translation>プランを読み込めません: %1</translation>
    </message>
    <message>
        <source>%1 offers no zone with this plan&apos;s GPU; pick one of the listed regions.</source>
        <translation>%1 にはこのプランの GPU を提供するゾーンがありません。一覧のリージョンから選んでください。</translation>
    </message>
    <message>
        <source>%1: cannot write the file (%2); the previous file is kept</source>
        <translation>%1: ファイルに書き込めません (%2)。以前のファイルはそのまま残ります</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>YAML (*.yaml *.yml)</source>
        <translation>YAML (*.yaml *.yml)</translation>
    </message>
    <message>
        <source>Shell script (*.sh)</source>
        <translation>シェルスクリプト (*.sh)</translation>
    </message>
    <message>
        <source>S&amp;trategy:</source>
        <translation>戦略(&amp;T):</translation>
    </message>
    <message>
        <source>The sharding strategy the Job runs: the plan&apos;s recommendation, or another to measure it on the same nodes</source>
        <translation>Job が実行するシャーディング戦略: プランの推奨、または同じノードで計測したい別の戦略</translation>
    </message>
    <message>
        <source>%1 (recommended)</source>
        <translation>%1 (推奨)</translation>
    </message>
    <message>
        <source>%1 (does not fit)</source>
        <translation>%1 (収まらない)</translation>
    </message>
    <message>
        <source>No strategy fits this plan, so there is nothing to deploy. Change the plan on the Plan page, or pick a strategy to prepare it anyway.</source>
        <translation>このプランに収まる戦略がないため、デプロイするものがありません。「プラン」ページでプランを変更するか、戦略を選んでそのまま準備してください。</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::ComparePage</name>
    <message>
        <source>any</source>
        <translation>すべて</translation>
    </message>
    <message>
        <source>Show only runs of this model.</source>
        <translation>このモデルの実行だけを表示します。</translation>
    </message>
    <message>
        <source>Show only runs on this hardware.</source>
        <translation>このハードウェアでの実行だけを表示します。</translation>
    </message>
    <message>
        <source>Show only runs of this strategy.</source>
        <translation>この戦略の実行だけを表示します。</translation>
    </message>
    <message>
        <source>Show only runs on this node.</source>
        <translation>このノードでの実行だけを表示します。</translation>
    </message>
    <message>
        <source>Started between</source>
        <translation>開始日の範囲</translation>
    </message>
    <message>
        <source>Show only runs started in this date range (inclusive).</source>
        <translation>この期間（両端を含む）に開始した実行だけを表示します。</translation>
    </message>
    <message>
        <source>Model:</source>
        <translation>モデル:</translation>
    </message>
    <message>
        <source>Hardware:</source>
        <translation>ハードウェア:</translation>
    </message>
    <message>
        <source>Strategy:</source>
        <translation>戦略:</translation>
    </message>
    <message>
        <source>Node:</source>
        <translation>ノード:</translation>
    </message>
    <message>
        <source>and</source>
        <translation>～</translation>
    </message>
    <message>
        <source>Check all shown</source>
        <translation>表示中をすべてチェック</translation>
    </message>
    <message>
        <source>Put every run the filters show into the charts.</source>
        <translation>フィルタで表示中のすべての実行をグラフに入れます。</translation>
    </message>
    <message>
        <source>Uncheck all</source>
        <translation>すべてのチェックを外す</translation>
    </message>
    <message>
        <source>Export &amp;charts…</source>
        <translation>グラフをエクスポート(&amp;C)…</translation>
    </message>
    <message>
        <source>Save the four charts as PNG, SVG or PDF with a caption (%1).</source>
        <translation>4 つのグラフをキャプション付きで PNG、SVG、PDF として保存します（%1）。</translation>
    </message>
    <message>
        <source>Export &amp;table…</source>
        <translation>表をエクスポート(&amp;T)…</translation>
    </message>
    <message>
        <source>Save the checked runs as CSV or Markdown with a caption (%1).</source>
        <translation>チェックした実行をキャプション付きで CSV または Markdown として保存します（%1）。</translation>
    </message>
    <message>
        <source>&amp;Reload</source>
        <translation>再読み込み(&amp;R)</translation>
    </message>
    <message>
        <source>Read the runs from the workspace again (%1).</source>
        <translation>ワークスペースから実行を読み直します（%1）。</translation>
    </message>
    <message>
        <source>Export charts</source>
        <translation>グラフのエクスポート</translation>
    </message>
    <message>
        <source>PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)</source>
        <translation>PNG 画像 (*.png);;SVG 図 (*.svg);;PDF 文書 (*.pdf)</translation>
    </message>
    <message>
        <source>Export table</source>
        <translation>表のエクスポート</translation>
    </message>
    <message>
        <source>CSV table (*.csv);;Markdown table (*.md)</source>
        <translation>CSV 表 (*.csv);;Markdown 表 (*.md)</translation>
    </message>
    <message>
        <source>Export &amp;prediction chart…</source>
        <translation>予測グラフをエクスポート(&amp;P)…</translation>
    </message>
    <message>
        <source>Save the measured-vs-predicted chart as PNG, SVG or PDF with a caption naming the calibration.</source>
        <translation>実測と予測のグラフを、キャリブレーションを明記したキャプション付きで PNG、SVG、PDF として保存します。</translation>
    </message>
    <message>
        <source>The calibration behind the &quot;Calibrated&quot; columns, per GPU type shown: fitted to the store&apos;s newest probe of a node with that GPU and to its finished runs. Its residuals are in-sample: they show what calibration explains, not how it predicts a new run.</source>
        <translation>「キャリブレーション済み」列の根拠となるキャリブレーション(表示中の GPU 種別ごと): その GPU を持つノードの最新の計測結果と、完了した実行に適合させたものです。残差はインサンプルです。キャリブレーションで説明できる範囲を示し、新しい実行の予測精度を示すものではありません。</translation>
    </message>
    <message>
        <source>Measured tokens/s of each checked run beside the presets&apos; and the calibrated prediction. The calibrated prediction is fitted to these runs (in-sample).</source>
        <translation>チェックした各実行の実測トークン/秒と、プリセットによる予測およびキャリブレーション済みの予測を並べます。キャリブレーション済みの予測はこれらの実行に適合させたものです(インサンプル)。</translation>
    </message>
    <message>
        <source>no run store is open</source>
        <translation>実行ストアが開かれていません</translation>
    </message>
    <message>
        <source>Calibrating from the run store…</source>
        <translation>実行ストアからキャリブレーション中…</translation>
    </message>
    <message>
        <source>Predictions unavailable: %1</source>
        <translation>予測を利用できません: %1</translation>
    </message>
    <message>
        <source>No measurements to compare with predictions: the store holds no completed or out-of-memory GPU run with its configuration. Validate a plan on a GPU node, or import measured runs, and they appear here with their predictions.</source>
        <translation>予測と比較する実測がありません: ストアには、構成が保存された完了またはメモリ不足の GPU 実行がありません。GPU ノードでプランを検証するか、実測した実行をインポートすると、予測とともにここに表示されます。</translation>
    </message>
    <message>
        <source>None of the runs shown has a prediction: only completed or out-of-memory runs on a known GPU preset are predicted.</source>
        <translation>表示中の実行には予測がありません: 予測されるのは、既知の GPU プリセット上で完了またはメモリ不足になった実行だけです。</translation>
    </message>
    <message>
        <source>Export prediction chart</source>
        <translation>予測グラフをエクスポート</translation>
    </message>
    <message>
        <source>Show only runs of this backend: native (Shardwise&apos;s runner) or torch (PyTorch).</source>
        <translation>このバックエンドの実行だけを表示します: native (Shardwise のランナー) または torch (PyTorch)。</translation>
    </message>
    <message>
        <source>Backend:</source>
        <translation>バックエンド:</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::DecisionStepModel</name>
    <message>
        <source>decided</source>
        <translation>決定</translation>
    </message>
    <message>
        <source>passed on</source>
        <translation>次へ</translation>
    </message>
    <message>
        <source>not reached</source>
        <translation>未到達</translation>
    </message>
    <message>
        <source>%1. %2</source>
        <translation>%1. %2</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>ステップ</translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation>判定</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>理由</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::HelpViewer</name>
    <message>
        <source>Shardwise user guide</source>
        <translation>Shardwise ユーザーガイド</translation>
    </message>
    <message>
        <source>The user guide is missing from this installation (share/doc/shardwise/user-guide.md).</source>
        <translation>このインストールにはユーザーガイドがありません（share/doc/shardwise/user-guide.md）。</translation>
    </message>
    <message>
        <source>Back</source>
        <translation>戻る</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::HostKeyTrustDialog</name>
    <message>
        <source>Host key changed</source>
        <translation>ホスト鍵が変更されました</translation>
    </message>
    <message>
        <source>Trust this host key?</source>
        <translation>このホスト鍵を信頼しますか？</translation>
    </message>
    <message>
        <source>The node &quot;%1&quot; (%2) presented a host key different from the one recorded for it. This can mean that someone intercepts the connection, or that the machine was reinstalled. Shardwise refuses to connect. If the change is expected, remove the old key from the known_hosts file and add the node again.</source>
        <translation>ノード「%1」（%2）は記録されているものと異なるホスト鍵を提示しました。誰かが接続を傍受しているか、マシンが再インストールされた可能性があります。Shardwise は接続を拒否します。変更が想定どおりなら、known_hosts ファイルから古い鍵を削除してノードを追加し直してください。</translation>
    </message>
    <message>
        <source>The authenticity of the node &quot;%1&quot; (%2) cannot be established: its host key is in no known_hosts file. Compare the fingerprint below with the one `ssh-keygen -lf` prints for the host key on the node itself, and trust it only if they match.</source>
        <translation>ノード「%1」（%2）の真正性を確認できません。そのホスト鍵はどの known_hosts ファイルにもありません。下のフィンガープリントを、ノード上でホスト鍵に対して `ssh-keygen -lf` が表示するものと比較し、一致する場合にのみ信頼してください。</translation>
    </message>
    <message>
        <source>Host:</source>
        <translation>ホスト:</translation>
    </message>
    <message>
        <source>Key type:</source>
        <translation>鍵の種類:</translation>
    </message>
    <message>
        <source>Fingerprint:</source>
        <extracomment>the SHA-256 fingerprint of an SSH host key, as ssh-keygen -l prints it</extracomment>
        <translation>フィンガープリント:</translation>
    </message>
    <message>
        <source>&amp;Trust and connect</source>
        <translation>信頼して接続(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;Do not trust</source>
        <translation>信頼しない(&amp;D)</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::LogTailModel</name>
    <message>
        <source>[rank %1] %2</source>
        <extracomment>one log line: the rank that wrote it, then the text</extracomment>
        <translation>[ランク %1] %2</translation>
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
        <translation>ページ</translation>
    </message>
    <message>
        <source>Workspace: %1</source>
        <translation>ワークスペース: %1</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>ファイル(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>終了(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>表示(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Appearance</source>
        <translation>外観(&amp;A)</translation>
    </message>
    <message>
        <source>Follow the &amp;system</source>
        <translation>システムに従う(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Light</source>
        <translation>ライト(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Dark</source>
        <translation>ダーク(&amp;D)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>ヘルプ(&amp;H)</translation>
    </message>
    <message>
        <source>User &amp;guide</source>
        <translation>ユーザーガイド(&amp;G)</translation>
    </message>
    <message>
        <source>&amp;About Shardwise</source>
        <translation>Shardwise について(&amp;A)</translation>
    </message>
    <message>
        <source>About Shardwise</source>
        <translation>Shardwise について</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;Shardwise %1&lt;/b&gt;&lt;/p&gt;&lt;p&gt;Plan, measure and compare training-state sharding (ZeRO 0-3, ZeRO-3 offload, FSDP2) on your own GPUs.&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;Shardwise %1&lt;/b&gt;&lt;/p&gt;&lt;p&gt;学習状態のシャーディング（ZeRO 0-3、ZeRO-3 オフロード、FSDP2）を自分の GPU で計画、計測、比較します。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Quit Shardwise</source>
        <translation>Shardwise を終了</translation>
    </message>
    <message>
        <source>&amp;Keep Shardwise open</source>
        <translation>Shardwise を開いたままにする(&amp;K)</translation>
    </message>
    <message>
        <source>Qwen2.5 7B on one node of 8 × H100 80GB (NVLink), sequence 4096</source>
        <translation>Qwen2.5 7B、8 × H100 80GB（NVLink）のノード 1 台、シーケンス 4096</translation>
    </message>
    <message>
        <source>Try it here: tiny decoder, 2 ranks, validated on this machine&apos;s CPU</source>
        <translation>ここで試す: 小さなデコーダー、2 ランク、このマシンの CPU で検証</translation>
    </message>
    <message>
        <source>Reference: Qwen2.5 3B on one node of 4 × L4 (PCIe)</source>
        <translation>参考: Qwen2.5 3B、4 × L4（PCIe）のノード 1 台</translation>
    </message>
    <message>
        <source>Open &amp;example</source>
        <translation>サンプルを開く(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;Import runs…</source>
        <translation>実行をインポート(&amp;I)…</translation>
    </message>
    <message>
        <source>Store runs measured elsewhere from a CSV or JSON export (shardwise-cli runs export).</source>
        <translation>別の場所で計測した実行を CSV または JSON のエクスポート（shardwise-cli runs export）から保存します。</translation>
    </message>
    <message>
        <source>Example: %1</source>
        <translation>サンプル: %1</translation>
    </message>
    <message>
        <source>Import runs</source>
        <translation>実行をインポート</translation>
    </message>
    <message>
        <source>Run exports (*.csv *.json);;All files (*)</source>
        <translation>実行のエクスポート (*.csv *.json);;すべてのファイル (*)</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::NodeFactsModel</name>
    <message>
        <source>not found</source>
        <translation>見つかりません</translation>
    </message>
    <message>
        <source>Host name</source>
        <translation>ホスト名</translation>
    </message>
    <message>
        <source>Operating system</source>
        <translation>オペレーティングシステム</translation>
    </message>
    <message>
        <source>Architecture</source>
        <translation>アーキテクチャ</translation>
    </message>
    <message>
        <source>CPU cores</source>
        <translation>CPU コア数</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>メモリ</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>none: only the CPU runner can run here</source>
        <translation>なし: ここでは CPU ランナーのみ実行できます</translation>
    </message>
    <message>
        <source>GPU %1</source>
        <translation>GPU %1</translation>
    </message>
    <message>
        <source>%1, %2 (%3)</source>
        <translation>%1、%2（%3）</translation>
    </message>
    <message>
        <source>NVIDIA driver</source>
        <translation>NVIDIA ドライバ</translation>
    </message>
    <message>
        <source>CUDA supported by the driver</source>
        <translation>ドライバが対応する CUDA</translation>
    </message>
    <message>
        <source>CUDA toolkit</source>
        <translation>CUDA ツールキット</translation>
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
        <translation>PyTorch の CUDA</translation>
    </message>
    <message>
        <source>LibTorch CMake folder</source>
        <translation>LibTorch の CMake フォルダ</translation>
    </message>
    <message>
        <source>CMake</source>
        <translation>CMake</translation>
    </message>
    <message>
        <source>C++ compiler</source>
        <translation>C++ コンパイラ</translation>
    </message>
    <message>
        <source>Can build the runner</source>
        <translation>ランナーをビルドできるか</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>はい</translation>
    </message>
    <message>
        <source>no</source>
        <translation>いいえ</translation>
    </message>
    <message>
        <source>Problem</source>
        <translation>問題</translation>
    </message>
    <message>
        <source>Property</source>
        <translation>項目</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>値</translation>
    </message>
    <message>
        <source>Matmul rate (bf16)</source>
        <translation>行列積の演算速度 (bf16)</translation>
    </message>
    <message>
        <source>Matmul rate (fp32)</source>
        <translation>行列積の演算速度 (fp32)</translation>
    </message>
    <message>
        <source>Device copy bandwidth</source>
        <translation>デバイス内コピー帯域幅</translation>
    </message>
    <message>
        <source>Host to device (pinned)</source>
        <translation>ホスト→デバイス (ピン留め)</translation>
    </message>
    <message>
        <source>Device to host (pinned)</source>
        <translation>デバイス→ホスト (ピン留め)</translation>
    </message>
    <message>
        <source>CPU AdamW rate</source>
        <translation>CPU AdamW の処理速度</translation>
    </message>
    <message>
        <source>All-gather bus bandwidth</source>
        <translation>All-Gather のバス帯域幅</translation>
    </message>
    <message>
        <source>Reduce-scatter bus bandwidth</source>
        <translation>Reduce-Scatter のバス帯域幅</translation>
    </message>
    <message>
        <source>All-reduce bus bandwidth</source>
        <translation>All-Reduce のバス帯域幅</translation>
    </message>
    <message>
        <source>%1 M parameters/s</source>
        <translation>%1 M パラメータ/s</translation>
    </message>
    <message>
        <source>%1 at %2</source>
        <translation>%2 で %1</translation>
    </message>
    <message>
        <source>Probed</source>
        <translation>計測日時</translation>
    </message>
    <message>
        <source>%1, %2 (rank %3 of %4)</source>
        <translation>%1、%2 (ランク %3 / %4)</translation>
    </message>
    <message>
        <source>PyTorch for python3</source>
        <translation>python3 の PyTorch</translation>
    </message>
    <message>
        <source>Transformers</source>
        <translation>Transformers</translation>
    </message>
    <message>
        <source>not installed: the torch backend trains its plain PyTorch decoder</source>
        <translation>未インストール: torch バックエンドは素の PyTorch デコーダーで学習します</translation>
    </message>
    <message>
        <source>Can run the torch backend</source>
        <translation>torch バックエンドを実行できるか</translation>
    </message>
    <message>
        <source>Missing for torch</source>
        <translation>torch に不足しているもの</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::NodeJob</name>
    <message>
        <source>This machine needs no connection.</source>
        <translation>このマシンには接続は不要です。</translation>
    </message>
    <message>
        <source>Connected as %1 in %2 ms; the node runs %3.</source>
        <translation>%1 として %2 ミリ秒で接続しました。ノードでは %3 が動作しています。</translation>
    </message>
    <message>
        <source>Connected as %1 in %2 ms, but a test command ended with %3.</source>
        <translation>%1 として %2 ミリ秒で接続しましたが、テストコマンドが %3 で終了しました。</translation>
    </message>
    <message>
        <source>This machine runs the runner installed beside Shardwise; only SSH nodes are prepared.</source>
        <translation>このマシンは Shardwise と一緒にインストールされたランナーを使います。準備が必要なのは SSH ノードだけです。</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::NodeTableModel</name>
    <message>
        <source>This machine</source>
        <translation>このマシン</translation>
    </message>
    <message>
        <source>SSH</source>
        <translation>SSH</translation>
    </message>
    <message>
        <source>Not discovered yet</source>
        <translation>未調査</translation>
    </message>
    <message>
        <source>No GPU (CPU runner only)</source>
        <translation>GPU なし（CPU ランナーのみ）</translation>
    </message>
    <message>
        <source>%1 × %2, %3 each</source>
        <extracomment>e.g. &quot;2 × NVIDIA H200, 141.0 GiB each&quot;</extracomment>
        <translation>%1 × %2（各 %3）</translation>
    </message>
    <message>
        <source>driver %1</source>
        <translation>ドライバ %1</translation>
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
        <translation>未承認</translation>
    </message>
    <message>
        <source>The SHA256 fingerprint of the host key you accepted; a different key is always refused.</source>
        <translation>承認したホスト鍵の SHA256 フィンガープリント。異なる鍵は常に拒否されます。</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名前</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>種類</translation>
    </message>
    <message>
        <source>Address</source>
        <translation>アドレス</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>Software</source>
        <translation>ソフトウェア</translation>
    </message>
    <message>
        <source>Host key</source>
        <translation>ホスト鍵</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::NodesPage</name>
    <message>
        <source>&amp;NCCL settings…</source>
        <translation>NCCL 設定(&amp;N)…</translation>
    </message>
    <message>
        <source>Environment variables for NCCL that the node&apos;s runs get, e.g. NCCL_NVLS_ENABLE=0 where NVLink multicast is forbidden; none by default.</source>
        <translation>このノードの実行が受け取る NCCL 用の環境変数 (NVLink マルチキャストが禁止されている場合の NCCL_NVLS_ENABLE=0 など)。既定ではなし。</translation>
    </message>
    <message>
        <source>The NCCL settings of %1 were not changed: %2</source>
        <translation>%1 の NCCL 設定は変更されませんでした: %2</translation>
    </message>
    <message>
        <source>%1: runs give its ranks %2.</source>
        <translation>%1: 実行時にランクへ %2 を渡します。</translation>
    </message>
    <message>
        <source>%1: no NCCL settings; NCCL chooses its defaults.</source>
        <translation>%1: NCCL 設定なし。NCCL が既定値を選びます。</translation>
    </message>
    <message>
        <source>NCCL settings of %1</source>
        <translation>%1 の NCCL 設定</translation>
    </message>
    <message>
        <source>One NAME=VALUE per line, given to every rank this node runs (e.g. NCCL_NVLS_ENABLE=0 where NVLink multicast is forbidden). Empty: none.</source>
        <translation>1 行に 1 つの NAME=VALUE。このノードで動くすべてのランクに渡されます (NVLink マルチキャストが禁止されている場合の NCCL_NVLS_ENABLE=0 など)。空: なし。</translation>
    </message>
    <message>
        <source>Add &amp;this machine</source>
        <translation>このマシンを追加(&amp;T)</translation>
    </message>
    <message>
        <source>Adds this machine as the node &quot;local&quot; and discovers its facts.</source>
        <translation>このマシンをノード「local」として追加し、その情報を調査します。</translation>
    </message>
    <message>
        <source>Add &amp;SSH node…</source>
        <translation>SSH ノードを追加(&amp;S)…</translation>
    </message>
    <message>
        <source>Adds a machine reached over SSH.</source>
        <translation>SSH で到達できるマシンを追加します。</translation>
    </message>
    <message>
        <source>&amp;Remove</source>
        <translation>削除(&amp;R)</translation>
    </message>
    <message>
        <source>Removes the node; runs measured on it keep its name.</source>
        <translation>ノードを削除します。そこで計測した実行はノード名を保持します。</translation>
    </message>
    <message>
        <source>Test &amp;connection</source>
        <translation>接続をテスト(&amp;C)</translation>
    </message>
    <message>
        <source>Connects, checks the host key and runs one command.</source>
        <translation>接続してホスト鍵を確認し、コマンドを 1 つ実行します。</translation>
    </message>
    <message>
        <source>&amp;Discover facts</source>
        <translation>情報を調査(&amp;D)</translation>
    </message>
    <message>
        <source>Finds the GPUs, driver, CUDA, NCCL, LibTorch and build tools on the node.</source>
        <translation>ノード上の GPU、ドライバ、CUDA、NCCL、LibTorch、ビルドツールを調べます。</translation>
    </message>
    <message>
        <source>&amp;Prepare</source>
        <translation>準備(&amp;P)</translation>
    </message>
    <message>
        <source>Facts of the selected node</source>
        <translation>選択したノードの情報</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>The nodes could not be read: %1</source>
        <translation>ノードを読み込めませんでした: %1</translation>
    </message>
    <message>
        <source>This machine could not be added: %1</source>
        <translation>このマシンを追加できませんでした: %1</translation>
    </message>
    <message>
        <source>Added %1; connecting…</source>
        <translation>%1 を追加しました。接続中…</translation>
    </message>
    <message>
        <source>The node could not be added: %1</source>
        <translation>ノードを追加できませんでした: %1</translation>
    </message>
    <message>
        <source>The node could not be removed: %1</source>
        <translation>ノードを削除できませんでした: %1</translation>
    </message>
    <message>
        <source>Connecting to %1…</source>
        <translation>%1 に接続中…</translation>
    </message>
    <message>
        <source>Discovering the facts of %1…</source>
        <translation>%1 の情報を調査中…</translation>
    </message>
    <message>
        <source>The facts could not be stored: %1</source>
        <translation>情報を保存できませんでした: %1</translation>
    </message>
    <message numerus="yes">
        <source>%1: %n GPU(s) found.</source>
        <translation>
            <numerusform>%1: %n 個の GPU が見つかりました。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1: %n GPU(s) found; the runner cannot be built there yet (see the problems below).</source>
        <translation>
            <numerusform>%1: %n 個の GPU が見つかりましたが、まだランナーをビルドできません（下の問題を参照）。</numerusform>
        </translation>
    </message>
    <message>
        <source>%1: the host key was not trusted, so Shardwise did not log in.</source>
        <translation>%1: ホスト鍵が信頼されなかったため、Shardwise はログインしませんでした。</translation>
    </message>
    <message>
        <source>%1: the host key could not be recorded: %2</source>
        <translation>%1: ホスト鍵を記録できませんでした: %2</translation>
    </message>
    <message>
        <source>Uploads the runner&apos;s sources to the SSH node and builds them there against its LibTorch; an unchanged runner is not built again.</source>
        <translation>ランナーのソースを SSH ノードにアップロードし、そのノードの LibTorch でビルドします。変更のないランナーは再ビルドしません。</translation>
    </message>
    <message>
        <source>Cancel pr&amp;eparation</source>
        <translation>準備を中止(&amp;E)</translation>
    </message>
    <message>
        <source>Stops the upload or the build on the node.</source>
        <translation>ノード上のアップロードまたはビルドを停止します。</translation>
    </message>
    <message>
        <source>%1: %p%</source>
        <translation>%1: %p%</translation>
    </message>
    <message>
        <source>Cancelling the preparation…</source>
        <translation>準備を中止しています…</translation>
    </message>
    <message>
        <source>%1 was prepared, but the store did not take it: %2</source>
        <translation>%1 は準備できましたが、ストアに記録できませんでした: %2</translation>
    </message>
    <message>
        <source>%1 is prepared: the runner was already built at %2.</source>
        <translation>%1 は準備済みです: ランナーは %2 にビルド済みでした。</translation>
    </message>
    <message>
        <source>%1 is prepared: the runner was built at %2.</source>
        <translation>%1 は準備済みです: ランナーを %2 にビルドしました。</translation>
    </message>
    <message>
        <source>%p%</source>
        <translation>%p%</translation>
    </message>
    <message>
        <source>Preparing %1…</source>
        <translation>%1 を準備しています…</translation>
    </message>
    <message>
        <source>Pro&amp;be</source>
        <translation>計測(&amp;B)</translation>
    </message>
    <message>
        <source>Measures the node&apos;s matmul rate, copy bandwidths, CPU AdamW rate and, with several GPUs, collective bandwidths with the runner, and stores them for calibrated plans.</source>
        <translation>ランナーでノードの行列積の演算速度、コピー帯域幅、CPU AdamW の処理速度、複数 GPU の場合は集団通信の帯域幅を計測し、キャリブレーション済みのプランのために保存します。</translation>
    </message>
    <message>
        <source>Stops the probe&apos;s runner processes on the node.</source>
        <translation>ノード上の計測用ランナープロセスを停止します。</translation>
    </message>
    <message>
        <source>The probes of %1 could not be read: %2</source>
        <translation>%1 の計測結果を読み込めませんでした: %2</translation>
    </message>
    <message numerus="yes">
        <source>Probing %1: %n rank(s) on %2…</source>
        <translation>
            <numerusform>%1 を計測中: %2 で %n ランク…</numerusform>
        </translation>
    </message>
    <message>
        <source>Cancelling the probe…</source>
        <translation>計測を中止しています…</translation>
    </message>
    <message>
        <source>The probe of %1 was cancelled; nothing was stored.</source>
        <translation>%1 の計測は中止されました。何も保存されていません。</translation>
    </message>
    <message>
        <source>The probe of %1 failed: %2</source>
        <translation>%1 の計測に失敗しました: %2</translation>
    </message>
    <message numerus="yes">
        <source>%1 probed: %n rank(s) measured and stored.</source>
        <translation>
            <numerusform>%1 を計測しました: %n ランクを計測して保存しました。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 probed: %n rank(s) measured and stored; calibrated plans for %2 start from this probe.</source>
        <translation>
            <numerusform>%1 を計測しました: %n ランクを計測して保存しました。%2 のキャリブレーション済みプランはこの計測から始まります。</numerusform>
        </translation>
    </message>
    <message>
        <source>Cance&amp;l probe</source>
        <translation>計測を中止(&amp;L)</translation>
    </message>
    <message>
        <source>The torch backend can run there (%1).</source>
        <translation>torch バックエンドはそこで実行できます (%1)。</translation>
    </message>
    <message>
        <source>The torch backend cannot run there: %1.</source>
        <translation>torch バックエンドはそこで実行できません: %1。</translation>
    </message>
    <message>
        <source>Probe net&amp;work…</source>
        <translation>ネットワークを計測(&amp;W)…</translation>
    </message>
    <message>
        <source>Measures the network between the selected SSH node and another: one probe over every GPU of both, whose collectives cross the network. The Plan page offers the result as an inter-node network.</source>
        <translation>選択した SSH ノードと別のノードの間のネットワークを計測します。両ノードのすべての GPU で 1 回計測し、その集団通信がネットワークを通ります。計画ページは結果をノード間ネットワークとして提示します。</translation>
    </message>
    <message>
        <source>Probe network</source>
        <translation>ネットワークを計測</translation>
    </message>
    <message>
        <source>Measure the network between the selected node and:</source>
        <translation>選択したノードと次のノードの間のネットワークを計測:</translation>
    </message>
    <message>
        <source>Select an SSH node to probe the network from.</source>
        <translation>ネットワークを計測する起点の SSH ノードを選択してください。</translation>
    </message>
    <message>
        <source>%1 is not another SSH node of this workspace.</source>
        <translation>%1 はこのワークスペースの別の SSH ノードではありません。</translation>
    </message>
    <message numerus="yes">
        <source>Probing the network %1: %n rank(s), %2…</source>
        <translation>
            <numerusform>ネットワーク %1 を計測中: %n ランク、%2…</numerusform>
        </translation>
    </message>
    <message>
        <source>The probe of the network %1 was cancelled; nothing was stored.</source>
        <translation>ネットワーク %1 の計測は中止されました。何も保存されていません。</translation>
    </message>
    <message>
        <source>The probe of the network %1 failed: %2</source>
        <translation>ネットワーク %1 の計測に失敗しました: %2</translation>
    </message>
    <message>
        <source>The network %1 was probed, but no collective was measured.</source>
        <translation>ネットワーク %1 を計測しましたが、集団通信は計測されませんでした。</translation>
    </message>
    <message>
        <source>Network %1: collectives reached %2 GB/s bus bandwidth; the Plan page offers it as an inter-node network of %3 GB/s per node.</source>
        <translation>ネットワーク %1: 集団通信のバス帯域幅は %2 GB/s でした。計画ページはこれをノードあたり %3 GB/s のノード間ネットワークとして提示します。</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::PinnedPlansPanel</name>
    <message>
        <source>Pin this plan</source>
        <translation>このプランをピン留め</translation>
    </message>
    <message>
        <source>Keep the form&apos;s plan as a column here, to compare it with the plans pinned before.</source>
        <translation>フォームのプランをここに列として残し、以前にピン留めしたプランと比較します。</translation>
    </message>
    <message>
        <source>Unpin</source>
        <translation>ピン留めを外す</translation>
    </message>
    <message>
        <source>Open in form</source>
        <translation>フォームで開く</translation>
    </message>
    <message>
        <source>Clear pins</source>
        <translation>すべて外す</translation>
    </message>
    <message>
        <source>Name of the saved plan</source>
        <translation>保存するプランの名前</translation>
    </message>
    <message>
        <source>Save plan</source>
        <translation>プランを保存</translation>
    </message>
    <message>
        <source>Save the form&apos;s plan in the workspace under this name.</source>
        <translation>フォームのプランをこの名前でワークスペースに保存します。</translation>
    </message>
    <message>
        <source>Pin saved</source>
        <translation>保存済みをピン留め</translation>
    </message>
    <message>
        <source>Open saved</source>
        <translation>保存済みを開く</translation>
    </message>
    <message>
        <source>Delete saved</source>
        <translation>保存済みを削除</translation>
    </message>
    <message>
        <source>Saved as %1.</source>
        <translation>%1 として保存しました。</translation>
    </message>
    <message>
        <source>Pinned plans</source>
        <translation>ピン留めしたプラン</translation>
    </message>
    <message>
        <source>Plan %1</source>
        <translation>プラン %1</translation>
    </message>
    <message>
        <source> with torch.compile</source>
        <translation>（torch.compile あり）</translation>
    </message>
    <message>
        <source>off</source>
        <translation>オフ</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>モデル</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>GPUs per node</source>
        <translation>ノードあたりの GPU</translation>
    </message>
    <message>
        <source>Nodes</source>
        <translation>ノード</translation>
    </message>
    <message>
        <source>Interconnect</source>
        <translation>インターコネクト</translation>
    </message>
    <message>
        <source>Inter-node network</source>
        <translation>ノード間ネットワーク</translation>
    </message>
    <message>
        <source>%1 GB/s</source>
        <translation>%1 GB/s</translation>
    </message>
    <message>
        <source>Host RAM per node</source>
        <translation>ノードあたりのホスト RAM</translation>
    </message>
    <message>
        <source>Framework</source>
        <translation>フレームワーク</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>精度</translation>
    </message>
    <message>
        <source>Micro-batch</source>
        <translation>マイクロバッチ</translation>
    </message>
    <message>
        <source>Sequence</source>
        <translation>シーケンス</translation>
    </message>
    <message>
        <source>Accumulation</source>
        <translation>累積</translation>
    </message>
    <message>
        <source>Activation checkpointing</source>
        <translation>アクティベーションチェックポイント</translation>
    </message>
    <message>
        <source>CUDA graphs</source>
        <translation>CUDA グラフ</translation>
    </message>
    <message>
        <source>on</source>
        <translation>オン</translation>
    </message>
    <message>
        <source>Recommendation</source>
        <translation>推奨</translation>
    </message>
    <message>
        <source>nothing fits</source>
        <translation>どれも収まらない</translation>
    </message>
    <message>
        <source>Peak per GPU</source>
        <translation>GPU あたりのピーク</translation>
    </message>
    <message>
        <source> (%1)</source>
        <translation>（%1）</translation>
    </message>
    <message>
        <source>Predicted</source>
        <translation>予測</translation>
    </message>
    <message>
        <source>%1 differs between the pinned plans.</source>
        <translation>%1 はピン留めしたプラン間で異なります。</translation>
    </message>
    <message>
        <source>No plan to save: the form has an error, or no workspace is open.</source>
        <translation>保存するプランがありません。フォームにエラーがあるか、ワークスペースが開かれていません。</translation>
    </message>
    <message>
        <source>Cannot save the plan: %1</source>
        <translation>プランを保存できません: %1</translation>
    </message>
    <message>
        <source>No saved plan is named %1.</source>
        <translation>%1 という名前の保存済みプランはありません。</translation>
    </message>
    <message>
        <source>The saved plan %1 no longer describes a plan this version can make.</source>
        <translation>保存済みプラン %1 は、このバージョンで作成できるプランを表していません。</translation>
    </message>
    <message>
        <source>Cannot delete the saved plan: %1</source>
        <translation>保存済みプランを削除できません: %1</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::PlanForm</name>
    <message>
        <source>Model</source>
        <translation>モデル</translation>
    </message>
    <message>
        <source>A model preset, or a Hugging Face config.json you opened (Qwen2, Llama, Mistral).</source>
        <translation>モデルのプリセット、または開いた Hugging Face の config.json（Qwen2、Llama、Mistral）。</translation>
    </message>
    <message>
        <source>Open config.json…</source>
        <translation>config.json を開く…</translation>
    </message>
    <message>
        <source>Read the architecture from a Hugging Face config.json or a Shardwise model file.</source>
        <translation>Hugging Face の config.json または Shardwise のモデルファイルからアーキテクチャを読み込みます。</translation>
    </message>
    <message>
        <source>&amp;Model:</source>
        <translation>モデル(&amp;M):</translation>
    </message>
    <message>
        <source>Hardware</source>
        <translation>ハードウェア</translation>
    </message>
    <message>
        <source>A GPU preset, or Custom to enter the memory and bandwidth figures yourself.</source>
        <translation>GPU のプリセット。メモリと帯域を自分で入力するには「カスタム」を選びます。</translation>
    </message>
    <message>
        <source>&amp;GPU:</source>
        <translation>GPU(&amp;G):</translation>
    </message>
    <message>
        <source>Custom GPU</source>
        <translation>カスタム GPU</translation>
    </message>
    <message>
        <source> GiB</source>
        <translation> GiB</translation>
    </message>
    <message>
        <source>Device memory as the driver reports it.</source>
        <translation>ドライバが報告するデバイスメモリ。</translation>
    </message>
    <message>
        <source> TFLOP/s</source>
        <translation> TFLOP/s</translation>
    </message>
    <message>
        <source>Dense bf16 tensor-core peak.</source>
        <translation>密 bf16 テンソルコアのピーク性能。</translation>
    </message>
    <message>
        <source> GB/s</source>
        <translation> GB/s</translation>
    </message>
    <message>
        <source>Device memory bandwidth.</source>
        <translation>デバイスメモリの帯域。</translation>
    </message>
    <message>
        <source>NVLink bandwidth per GPU per direction; 0 means no NVLink.</source>
        <translation>GPU あたり片方向の NVLink 帯域。0 は NVLink なし。</translation>
    </message>
    <message>
        <source>Host link (PCIe) bandwidth per direction.</source>
        <translation>ホスト接続（PCIe）の片方向帯域。</translation>
    </message>
    <message>
        <source>Memory:</source>
        <translation>メモリ:</translation>
    </message>
    <message>
        <source>bf16 peak:</source>
        <translation>bf16 ピーク:</translation>
    </message>
    <message>
        <source>HBM bandwidth:</source>
        <translation>HBM 帯域:</translation>
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
        <translation>各ノードの GPU 数。GPU ごとに 1 ランクが動きます。</translation>
    </message>
    <message>
        <source>Nodes; more than one adds the inter-node network to every collective.</source>
        <translation>ノード数。2 以上ではすべての集団通信にノード間ネットワークが加わります。</translation>
    </message>
    <message>
        <source>GPUs per node ×</source>
        <translation>GPU/ノード ×</translation>
    </message>
    <message>
        <source>nodes</source>
        <translation>ノード</translation>
    </message>
    <message>
        <source>&amp;Cluster:</source>
        <translation>クラスタ(&amp;C):</translation>
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
        <translation>ノード内の GPU 間の接続方式。判断順序のステップ 2 はこれで選びます。</translation>
    </message>
    <message>
        <source>&amp;Interconnect:</source>
        <translation>インターコネクト(&amp;I):</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>学習</translation>
    </message>
    <message>
        <source>bf16 (params, grads, Adam moments)</source>
        <translation>bf16（パラメータ、勾配、Adam モーメント）</translation>
    </message>
    <message>
        <source>bf16 compute, fp32 master weights and moments</source>
        <translation>bf16 計算、fp32 マスター重みとモーメント</translation>
    </message>
    <message>
        <source>Bytes per parameter of the training state: 8 for pure bf16, 16 with fp32 master weights.</source>
        <translation>学習状態のパラメータあたりバイト数: 純 bf16 で 8、fp32 マスター重みありで 16。</translation>
    </message>
    <message>
        <source>&amp;Precision:</source>
        <translation>精度(&amp;P):</translation>
    </message>
    <message>
        <source>Sequences per GPU per step.</source>
        <translation>ステップごとの GPU あたりシーケンス数。</translation>
    </message>
    <message>
        <source>Micro-&amp;batch:</source>
        <translation>マイクロバッチ(&amp;B):</translation>
    </message>
    <message>
        <source> tokens</source>
        <translation> トークン</translation>
    </message>
    <message>
        <source>Tokens per sequence.</source>
        <translation>シーケンスあたりのトークン数。</translation>
    </message>
    <message>
        <source>&amp;Sequence:</source>
        <translation>シーケンス(&amp;S):</translation>
    </message>
    <message>
        <source>expandable_segments:True</source>
        <translation>expandable_segments:True</translation>
    </message>
    <message>
        <source>PyTorch&apos;s caching-allocator setting that grows segments in place; it reduces fragmentation. In the reference benchmark two PCIe configurations only completed with it.</source>
        <translation>セグメントをその場で拡張する PyTorch キャッシングアロケータの設定で、断片化を減らします。参照ベンチマークでは 2 つの PCIe 構成がこれを使った場合にのみ完了しました。</translation>
    </message>
    <message>
        <source>Allocator:</source>
        <translation>アロケータ:</translation>
    </message>
    <message>
        <source>Step:</source>
        <translation>ステップ:</translation>
    </message>
    <message>
        <source>Activation checkpointing</source>
        <translation>活性化チェックポイント</translation>
    </message>
    <message>
        <source>Recompute each layer&apos;s forward in backward: less activation memory, about a third more compute.</source>
        <translation>逆伝播で各レイヤーの順伝播を再計算します。活性化メモリが減り、計算量は約 3 分の 1 増えます。</translation>
    </message>
    <message>
        <source>%1 (%2 GiB)</source>
        <translation>%1（%2 GiB）</translation>
    </message>
    <message>
        <source>Custom GPU…</source>
        <translation>カスタム GPU…</translation>
    </message>
    <message>
        <source>%1 (from %2)</source>
        <translation>%1（%2 から）</translation>
    </message>
    <message>
        <source>Open a model configuration</source>
        <translation>モデル構成を開く</translation>
    </message>
    <message>
        <source>Model configuration (*.json);;All files (*)</source>
        <translation>モデル構成 (*.json);;すべてのファイル (*)</translation>
    </message>
    <message>
        <source>%1 B parameters</source>
        <translation>%1 B パラメータ</translation>
    </message>
    <message>
        <source>%1 M parameters</source>
        <translation>%1 M パラメータ</translation>
    </message>
    <message>
        <source>%1 parameters</source>
        <translation>%1 パラメータ</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>Host memory (RAM) of each node. It decides whether the CPU-offload strategies fit: their host state (master weights, Adam moments, gradient shards, page-locked) for all of the node&apos;s GPUs must fit in the %1 % of it taken as usable.</source>
        <translation>各ノードのホストメモリ（RAM）。CPU オフロード戦略が収まるかどうかを決めます: ノードの全 GPU 分のホスト上の状態（マスター重み、Adam モーメント、勾配シャード、ページロック済み）が、そのうち使用可能とみなす %1 % に収まる必要があります。</translation>
    </message>
    <message>
        <source>Host &amp;RAM per node:</source>
        <translation>ノードあたりのホスト RAM(&amp;R):</translation>
    </message>
    <message>
        <source>C&amp;UDA graphs</source>
        <translation>CUDA グラフ(&amp;U)</translation>
    </message>
    <message>
        <source>Capture each training step once as a CUDA graph and replay it: the CPU issues one graph launch per step instead of every kernel, which speeds up small models and short sequences. Applies to the GPU-resident strategies (no CPU offload) under bf16 only; the CPU-offload strategies stay eager.</source>
        <translation>各学習ステップを一度 CUDA グラフとして記録し、以後はそれを再生します。CPU はカーネルを一つずつ発行する代わりにステップごとにグラフを 1 回起動するだけになり、小さなモデルや短いシーケンスが速くなります。状態を GPU に置く戦略（CPU オフロードなし）で bf16 の場合のみ有効です。CPU オフロード戦略はグラフなしで実行されます。</translation>
    </message>
    <message>
        <source>8 × 400 Gb/s InfiniBand</source>
        <translation>InfiniBand 8 × 400 Gb/s</translation>
    </message>
    <message>
        <source>8 × 200 Gb/s InfiniBand</source>
        <translation>InfiniBand 8 × 200 Gb/s</translation>
    </message>
    <message>
        <source>4 × 200 Gb/s InfiniBand</source>
        <translation>InfiniBand 4 × 200 Gb/s</translation>
    </message>
    <message>
        <source>400 Gb/s Ethernet</source>
        <translation>Ethernet 400 Gb/s</translation>
    </message>
    <message>
        <source>100 Gb/s Ethernet</source>
        <translation>Ethernet 100 Gb/s</translation>
    </message>
    <message>
        <source>%1 (%2 GB/s per node)</source>
        <translation>%1(ノードあたり %2 GB/s)</translation>
    </message>
    <message>
        <source>Custom…</source>
        <translation>カスタム…</translation>
    </message>
    <message>
        <source>The network between nodes: every collective that spans nodes runs at this bandwidth.</source>
        <translation>ノード間のネットワーク: ノードをまたぐ集団通信はすべてこの帯域で動作します。</translation>
    </message>
    <message>
        <source>Network bandwidth per node per direction, in GB/s (8 × 400 Gb/s NICs = 400 GB/s).</source>
        <translation>ノードあたり・方向あたりのネットワーク帯域(GB/s)。400 Gb/s の NIC 8 枚 = 400 GB/s。</translation>
    </message>
    <message>
        <source>Inter-&amp;node network:</source>
        <translation>ノード間ネットワーク(&amp;N):</translation>
    </message>
    <message>
        <source>Framework</source>
        <translation>フレームワーク</translation>
    </message>
    <message>
        <source>Shardwise runner (native)</source>
        <translation>Shardwise ランナー(ネイティブ)</translation>
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
        <translation>学習に使うフレームワーク: 計画はその既定設定で確保されるメモリと速度を予測し、実行できない戦略を示します。選ぶとその既定の精度とアクティベーション チェックポイントが設定されます。</translation>
    </message>
    <message>
        <source>Frame&amp;work:</source>
        <translation>フレームワーク(&amp;W):</translation>
    </message>
    <message>
        <source>The release you train with; empty means the release Shardwise models.</source>
        <translation>学習に使うリリース。空欄なら Shardwise がモデル化しているリリースです。</translation>
    </message>
    <message>
        <source>V&amp;ersion:</source>
        <translation>バージョン(&amp;E):</translation>
    </message>
    <message>
        <source>torch.compile each decoder layer</source>
        <translation>各デコーダー層を torch.compile</translation>
    </message>
    <message>
        <source>Compiled layers (PyTorch FSDP2 and torchtitan).</source>
        <translation>コンパイルされた層(PyTorch FSDP2 と torchtitan)。</translation>
    </message>
    <message>
        <source>Micro-batches per optimizer step.</source>
        <translation>オプティマイザ ステップあたりのマイクロバッチ数。</translation>
    </message>
    <message>
        <source>Accumula&amp;tion:</source>
        <translation>累積(&amp;T):</translation>
    </message>
    <message>
        <source>full layers</source>
        <translation>層全体</translation>
    </message>
    <message>
        <source>selective</source>
        <translation>選択的</translation>
    </message>
    <message>
        <source>Full recomputes each layer&apos;s forward; selective keeps the matmul outputs and recomputes the cheap parts (torchtitan&apos;s default).</source>
        <translation>全体は各層の順伝播を再計算します。選択的は行列積の出力を保持し、軽い部分だけを再計算します(torchtitan の既定)。</translation>
    </message>
    <message>
        <source>%1 (default)</source>
        <translation>%1(既定)</translation>
    </message>
    <message>
        <source>Sequence</source>
        <translation>シーケンス</translation>
    </message>
    <message>
        <source>Micro-batch</source>
        <translation>マイクロバッチ</translation>
    </message>
    <message>
        <source>Accumulation</source>
        <translation>累積</translation>
    </message>
    <message>
        <source>GPUs per node</source>
        <translation>ノードあたりの GPU 数</translation>
    </message>
    <message>
        <source>Nodes</source>
        <translation>ノード数</translation>
    </message>
    <message>
        <source>Host RAM per node</source>
        <translation>ノードあたりのホスト RAM</translation>
    </message>
    <message>
        <source>Inter-node network</source>
        <translation>ノード間ネットワーク</translation>
    </message>
    <message>
        <source>Custom GPU memory (at least 1 GiB)</source>
        <translation>カスタム GPU のメモリ（1 GiB 以上）</translation>
    </message>
    <message>
        <source>Custom GPU bf16 peak</source>
        <translation>カスタム GPU の bf16 ピーク</translation>
    </message>
    <message>
        <source>Custom GPU PCIe bandwidth</source>
        <translation>カスタム GPU の PCIe 帯域幅</translation>
    </message>
    <message>
        <source>Measured: %1 (%2 GB/s per node)</source>
        <translation>計測値: %1 (ノードあたり %2 GB/s)</translation>
    </message>
    <message>
        <source>Probed %1: collectives between the nodes reached %2 GB/s bus bandwidth, which the planner reaches at %3 GB/s per node.</source>
        <translation>%1 に計測: ノード間の集団通信のバス帯域幅は %2 GB/s で、プランナーはノードあたり %3 GB/s でこれに達します。</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::PlanPage</name>
    <message>
        <source>The decision order: lightest sharding that fits, then full sharding chosen by interconnect, then CPU offload; always validate on your own hardware.</source>
        <translation>判断順序: 収まる最も軽いシャーディング、次にインターコネクトで選ぶ完全シャーディング、最後に CPU オフロード。必ず自分のハードウェアで検証してください。</translation>
    </message>
    <message>
        <source>Where the validation runs are measured.</source>
        <translation>検証の実行を計測する場所。</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>CUDA GPUs</source>
        <translation>CUDA GPU</translation>
    </message>
    <message>
        <source>CPU runs exercise every strategy&apos;s schedule on any machine; their throughput says nothing about a GPU.</source>
        <translation>CPU での実行はどのマシンでも各戦略のスケジュールを動かせますが、そのスループットは GPU について何も示しません。</translation>
    </message>
    <message>
        <source>What measures the runs: Shardwise&apos;s runner, or PyTorch itself (DDP and fully_shard, the runs the PyTorch FSDP2 target predicts). Strategies PyTorch cannot express are left out.</source>
        <translation>実行を計測するもの: Shardwise のランナー、または PyTorch 自体 (DDP と fully_shard。PyTorch FSDP2 ターゲットが予測する実行)。PyTorch で表現できない戦略は除外されます。</translation>
    </message>
    <message>
        <source>Left out, as %1 cannot run them: %2.</source>
        <translation>%1 では実行できないため除外: %2。</translation>
    </message>
    <message>
        <source>V&amp;alidate</source>
        <translation>検証(&amp;A)</translation>
    </message>
    <message>
        <source>Queue the plan&apos;s run matrix (the recommendation and what the decision order says to measure beside it) with the same model, precision, micro-batch, sequence and GPU count (%1).</source>
        <translation>プランの実行マトリクス（推奨と、判断順序により併せて計測すべきもの）を同じモデル、精度、マイクロバッチ、シーケンス、GPU 数でキューに入れます（%1）。</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>キャンセル</translation>
    </message>
    <message>
        <source>Stop the running measurement and drop the queued ones.</source>
        <translation>実行中の計測を止め、キュー内のものを破棄します。</translation>
    </message>
    <message>
        <source>Validate on:</source>
        <translation>検証先:</translation>
    </message>
    <message>
        <source>Validation cancelled.</source>
        <translation>検証をキャンセルしました。</translation>
    </message>
    <message>
        <source>Cannot plan this configuration: %1</source>
        <translation>この構成は計画できません: %1</translation>
    </message>
    <message numerus="yes">
        <source>Queued %n run(s) on %1; the Runs page shows them with the rest of the queue.</source>
        <translation>
            <numerusform>%1 に %n 件の実行をキューに追加しました。「実行」ページでキューの残りと一緒に表示されます。</numerusform>
        </translation>
    </message>
    <message>
        <source>Run %1 of %2: step %3 of %4</source>
        <translation>実行 %1 / %2: ステップ %3 / %4</translation>
    </message>
    <message>
        <source>&amp;Open config…</source>
        <translation>設定を開く(&amp;O)…</translation>
    </message>
    <message>
        <source>Read a DeepSpeed ds_config.json or an Accelerate config YAML into the form: framework, strategy, precision, micro-batch, accumulation, GPUs, checkpointing and DeepSpeed&apos;s knobs.</source>
        <translation>DeepSpeed の ds_config.json または Accelerate の設定 YAML をフォームに読み込みます: フレームワーク、戦略、精度、マイクロバッチ、累積、GPU、チェックポイント、DeepSpeed の調整値。</translation>
    </message>
    <message>
        <source>E&amp;xport</source>
        <translation>エクスポート(&amp;X)</translation>
    </message>
    <message>
        <source>Write the selected candidate (or the recommendation) as a config for the framework you train with; each file names the plan it came from.</source>
        <translation>選択した候補(または推奨)を学習に使うフレームワークの設定として書き出します。各ファイルには元の計画が記されます。</translation>
    </message>
    <message>
        <source>DeepSpeed ds_config.json…</source>
        <translation>DeepSpeed ds_config.json…</translation>
    </message>
    <message>
        <source>Accelerate config YAML…</source>
        <translation>Accelerate 設定 YAML…</translation>
    </message>
    <message>
        <source>torchtitan job config TOML…</source>
        <translation>torchtitan ジョブ設定 TOML…</translation>
    </message>
    <message>
        <source>PyTorch FSDP2 script…</source>
        <translation>PyTorch FSDP2 スクリプト…</translation>
    </message>
    <message>
        <source>Launch lines (torchrun, deepspeed, srun)…</source>
        <translation>起動コマンド(torchrun、deepspeed、srun)…</translation>
    </message>
    <message>
        <source>Slurm batch script…</source>
        <translation>Slurm バッチスクリプト…</translation>
    </message>
    <message>
        <source>Nothing to export: no candidate is selected and nothing fits.</source>
        <translation>エクスポートするものがありません: 候補が選択されておらず、収まるものもありません。</translation>
    </message>
    <message>
        <source>Write %1 for %2.</source>
        <translation>%2 の %1 を書き出します。</translation>
    </message>
    <message>
        <source>Cannot write %1.</source>
        <translation>%1 を書き込めません。</translation>
    </message>
    <message>
        <source>Export %1</source>
        <translation>%1 をエクスポート</translation>
    </message>
    <message>
        <source>Wrote %1.</source>
        <translation>%1 を書き出しました。</translation>
    </message>
    <message>
        <source>Read %1 (%2).</source>
        <translation>%1 を読み込みました(%2)。</translation>
    </message>
    <message>
        <source>Warning: %1: %2</source>
        <translation>警告: %1: %2</translation>
    </message>
    <message>
        <source>Left to the plan (&quot;auto&quot;): %1</source>
        <translation>計画に任せる値(&quot;auto&quot;): %1</translation>
    </message>
    <message>
        <source>Cannot read %1: %2</source>
        <translation>%1 を読み込めません: %2</translation>
    </message>
    <message>
        <source>Open a DeepSpeed, Accelerate or torchtitan config</source>
        <translation>DeepSpeed、Accelerate または torchtitan の設定を開く</translation>
    </message>
    <message>
        <source>Framework configs (*.json *.yaml *.yml *.toml);;All files (*)</source>
        <translation>フレームワーク設定 (*.json *.yaml *.yml *.toml);;すべてのファイル (*)</translation>
    </message>
    <message>
        <source>%1 reads it, while this plan&apos;s figures are for %2; choose %1 as the framework for its defaults and figures.</source>
        <translation>これを読むのは %1 ですが、この計画の数値は %2 向けです。既定値と数値を合わせるにはフレームワークに %1 を選んでください。</translation>
    </message>
    <message>
        <source>The predicted peak per GPU of each strategy, stacked by kind. The dashed line is the usable GPU memory (less the planner&apos;s headroom): a bar above it does not fit.</source>
        <translation>各戦略の GPU あたりの予測ピークを種類別に積み上げたもの。破線は使用可能な GPU メモリ（プランナーの余裕分を引いたもの）で、それを超える棒は収まりません。</translation>
    </message>
    <message>
        <source>Cannot open %1 as a model: %2</source>
        <translation>%1 をモデルとして開けません: %2</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>Report: reasoning, charts and CSV…</source>
        <translation>レポート: 根拠、グラフ、CSV…</translation>
    </message>
    <message>
        <source>Write the plan&apos;s reasoning (Markdown), its memory chart (SVG, PNG) and the candidates&apos; figures (CSV) into one folder.</source>
        <translation>プランの根拠 (Markdown)、メモリグラフ (SVG、PNG)、候補の数値 (CSV) を 1 つのフォルダーに書き出します。</translation>
    </message>
    <message>
        <source>Export report into folder</source>
        <translation>レポートをフォルダーへ書き出す</translation>
    </message>
    <message>
        <source>Wrote the report into %1.</source>
        <translation>レポートを %1 に書き出しました。</translation>
    </message>
    <message>
        <source>This machine has no CUDA GPU that Shardwise knows of: a rehearsal measures one GPU&apos;s allocator peaks. Discover this machine&apos;s GPUs on the Nodes page.</source>
        <translation>このマシンには Shardwise が把握している CUDA GPU がありません：リハーサルは 1 GPU のアロケーターのピークを測定します。「ノード」ページでこのマシンの GPU を検出してください。</translation>
    </message>
    <message>
        <source>Nothing to rehearse: no candidate is selected and nothing fits.</source>
        <translation>リハーサルする対象がありません：候補が選択されておらず、収まるものもありません。</translation>
    </message>
    <message>
        <source>Run %1 on one GPU of this machine as rank 0 of world %2, with the plan&apos;s model, sequence, micro-batch, precision, checkpointing and allocator settings, on %3. The communicator moves no data: the run measures one rank&apos;s memory at world %2, not its speed. The Runs page shows it.</source>
        <translation>このマシンの 1 GPU で %1 をワールド %2 のランク 0 として、プランのモデル、シーケンス、マイクロバッチ、精度、チェックポイント、アロケーター設定で %3 により実行します。コミュニケーターはデータを転送しません：この実行はワールド %2 での 1 ランクのメモリを測定し、速度は測定しません。実行ページに表示されます。</translation>
    </message>
    <message>
        <source>Check the fit of world %1 on this GPU</source>
        <translation>ワールド %1 の収まりをこの GPU で確認</translation>
    </message>
    <message>
        <source>Cannot check the fit: %1</source>
        <translation>収まりを確認できません：%1</translation>
    </message>
    <message>
        <source>Queued a rehearsal of world %1 (%2) on this machine; the Runs page shows it.</source>
        <translation>このマシンでワールド %1（%2）のリハーサルをキューに追加しました。実行ページに表示されます。</translation>
    </message>
    <message>
        <source>Suggestion: %1 on PCIe needed expandable segments in the reference; tick &quot;%2&quot; under Allocator to measure it that way. Validate kept your setting (off).</source>
        <translation>提案: 参照測定では PCIe 上の %1 に expandable segments が必要でした。その条件で測定するには「アロケータ」の「%2」にチェックを入れてください。検証はあなたの設定 (オフ) のままです。</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::ProbeJob</name>
    <message>
        <source>rank %1: %2</source>
        <translation>ランク %1: %2</translation>
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
        <translation>ランク %1</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失敗</translation>
    </message>
    <message>
        <source>Finished</source>
        <translation>終了</translation>
    </message>
    <message>
        <source>Starting</source>
        <translation>開始中</translation>
    </message>
    <message>
        <source>Warming up</source>
        <translation>ウォームアップ中</translation>
    </message>
    <message>
        <source>Timing</source>
        <translation>計測中</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>%1 allocated, %2 peak</source>
        <translation>割り当て %1、ピーク %2</translation>
    </message>
    <message>
        <source>%1 peak RSS (host)</source>
        <translation>ピーク RSS %1（ホスト）</translation>
    </message>
    <message>
        <source>This rank&apos;s tokens over its timed steps so far, divided by their step time; warm-up steps are left out.</source>
        <translation>このランクのこれまでの計測ステップのトークン数をそのステップ時間で割った値。ウォームアップは除きます。</translation>
    </message>
    <message>
        <source>Rank</source>
        <translation>ランク</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状態</translation>
    </message>
    <message>
        <source>Steps done</source>
        <translation>完了ステップ</translation>
    </message>
    <message>
        <source>Throughput so far</source>
        <translation>これまでのスループット</translation>
    </message>
    <message>
        <source>Last step</source>
        <translation>直近のステップ</translation>
    </message>
    <message>
        <source>Loss</source>
        <translation>損失</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>メモリ</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>キャンセル済み</translation>
    </message>
    <message>
        <source>Stopped</source>
        <extracomment>a rank the launcher stopped when the run ended (another rank failed, or it timed out)</extracomment>
        <translation>停止済み</translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation>キャンセル中…</translation>
    </message>
    <message>
        <source>The run was cancelled before this rank finished; it was stopped.</source>
        <translation>このランクが終わる前に実行がキャンセルされたため、ランクは停止されました。</translation>
    </message>
    <message>
        <source>The run timed out before this rank finished; it was stopped.</source>
        <translation>このランクが終わる前に実行がタイムアウトしたため、ランクは停止されました。</translation>
    </message>
    <message>
        <source>The run ended (another rank failed) before this rank finished; it was stopped.</source>
        <translation>このランクが終わる前に実行が終了した（別のランクが失敗した）ため、ランクは停止されました。</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::RunDiagnosisPanel</name>
    <message>
        <source>The lines that show the selected failure appear here.</source>
        <translation>選択した失敗を示す行がここに表示されます。</translation>
    </message>
    <message>
        <source>Suggested next steps</source>
        <translation>推奨される次の手順</translation>
    </message>
    <message>
        <source>Select a run that did not complete to see why.</source>
        <translation>完了しなかった実行を選ぶと理由が表示されます。</translation>
    </message>
    <message>
        <source>rank %1</source>
        <translation>ランク %1</translation>
    </message>
    <message>
        <source>the launcher</source>
        <translation>ランチャー</translation>
    </message>
    <message>
        <source>First failure on %1: %2. %3</source>
        <extracomment>headline of a diagnosis: where the first failure happened, its kind, its message</extracomment>
        <translation>%1 で最初の失敗: %2。%3</translation>
    </message>
    <message>
        <source>Only symptoms were found (e.g. timeouts after a peer vanished); the cause left no trace in these logs.</source>
        <translation>症状だけが見つかりました（例: ピアが消えた後のタイムアウト）。原因はこれらのログに痕跡を残していません。</translation>
    </message>
    <message>
        <source>No failure was recognised in the ranks&apos; logs and events.</source>
        <translation>ランクのログとイベントに失敗は見つかりませんでした。</translation>
    </message>
    <message>
        <source>Another failure happened within the clock uncertainty of the first one, so their order is not certain.</source>
        <translation>最初の失敗と時計の誤差の範囲内で別の失敗が起きたため、順序は確定できません。</translation>
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
        <translation>最後に出力した行:</translation>
    </message>
    <message>
        <source>Rerun with expandable segments</source>
        <translation>拡張可能セグメントで再実行</translation>
    </message>
    <message>
        <source>Rerun with %1 (offload)</source>
        <translation>%1 で再実行（オフロード）</translation>
    </message>
    <message>
        <source>Rerun with %1</source>
        <translation>%1 で再実行</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::RunFailureModel</name>
    <message>
        <source>Rank %1</source>
        <translation>ランク %1</translation>
    </message>
    <message>
        <source>Launcher</source>
        <extracomment>a failure not tied to one rank (a launcher or node log)</extracomment>
        <translation>ランチャー</translation>
    </message>
    <message>
        <source>First failure (root cause)</source>
        <translation>最初の失敗（根本原因）</translation>
    </message>
    <message>
        <source>Symptom</source>
        <extracomment>a failure that follows from another one, e.g. a watchdog timeout after a peer died</extracomment>
        <translation>症状</translation>
    </message>
    <message>
        <source>Failure</source>
        <translation>失敗</translation>
    </message>
    <message>
        <source>%1:%2: %3</source>
        <translation>%1:%2: %3</translation>
    </message>
    <message>
        <source>Order</source>
        <extracomment>position of a failure in time order</extracomment>
        <translation>順序</translation>
    </message>
    <message>
        <source>Where</source>
        <translation>場所</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>種類</translation>
    </message>
    <message>
        <source>Logged at</source>
        <translation>記録時刻</translation>
    </message>
    <message>
        <source>Role</source>
        <translation>役割</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>メッセージ</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::RunHistoryModel</name>
    <message>
        <source>Running</source>
        <translation>実行中</translation>
    </message>
    <message>
        <source>Completed</source>
        <translation>完了</translation>
    </message>
    <message>
        <source>Out of memory</source>
        <translation>メモリ不足</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失敗</translation>
    </message>
    <message>
        <source>Timed out</source>
        <translation>タイムアウト</translation>
    </message>
    <message>
        <source>Node lost</source>
        <translation>ノード喪失</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>キャンセル済み</translation>
    </message>
    <message>
        <source>Interrupted</source>
        <extracomment>a run whose recording process stopped without finishing it</extracomment>
        <translation>中断</translation>
    </message>
    <message numerus="yes">
        <source>%n rank(s)</source>
        <translation>
            <numerusform>%n ランク</numerusform>
        </translation>
    </message>
    <message>
        <source>#</source>
        <extracomment>run number</extracomment>
        <translation>#</translation>
    </message>
    <message>
        <source>Started</source>
        <translation>開始</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状態</translation>
    </message>
    <message>
        <source>Strategy</source>
        <translation>戦略</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>モデル</translation>
    </message>
    <message>
        <source>Ranks</source>
        <translation>ランク数</translation>
    </message>
    <message>
        <source>Node</source>
        <translation>ノード</translation>
    </message>
    <message>
        <source>Throughput</source>
        <translation>スループット</translation>
    </message>
    <message>
        <source>Median step</source>
        <translation>ステップ中央値</translation>
    </message>
    <message>
        <source>Peak allocated</source>
        <translation>ピーク割り当て</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>理由</translation>
    </message>
    <message>
        <source>Detached</source>
        <extracomment>a remote run whose ranks go on running on their nodes with nothing following them; it can be re-attached</extracomment>
        <translation>切り離し中</translation>
    </message>
    <message>
        <source>Backend</source>
        <translation>バックエンド</translation>
    </message>
    <message>
        <source>%1 (predicted %2 at world %3)</source>
        <translation>%1（ワールド %3 での予測 %2）</translation>
    </message>
    <message>
        <source>%1 Measured on rank 0 of a rehearsal of world %2; the prediction is the plan&apos;s per rank at world %2.</source>
        <translation>%1 ワールド %2 のリハーサルのランク 0 で測定。予測はワールド %2 でのプランの 1 ランクあたりの値です。</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::RunJob</name>
    <message>
        <source>shardwise-runner was not found: set SHARDWISE_RUNNER or install it beside this program.</source>
        <translation>shardwise-runner が見つかりません。SHARDWISE_RUNNER を設定するか、このプログラムと同じ場所にインストールしてください。</translation>
    </message>
    <message>
        <source>%1 completed: %2</source>
        <translation>%1 完了: %2</translation>
    </message>
    <message>
        <source>%1 ended as %2: %3</source>
        <translation>%1 は %2 で終了: %3</translation>
    </message>
    <message>
        <source>The run could not be started: %1</source>
        <translation>実行を開始できませんでした: %1</translation>
    </message>
    <message>
        <source>The runner %1 is not an executable file (check SHARDWISE_RUNNER).</source>
        <translation>ランナー %1 は実行可能ファイルではありません（SHARDWISE_RUNNER を確認してください）。</translation>
    </message>
    <message>
        <source>The node &quot;%1&quot; is no longer in this workspace.</source>
        <translation>ノード「%1」はこのワークスペースにもうありません。</translation>
    </message>
    <message>
        <source>The node &quot;%1&quot; has no runner yet: prepare it on the Nodes page first.</source>
        <translation>ノード「%1」にはまだランナーがありません。先に「ノード」ページで準備してください。</translation>
    </message>
    <message>
        <source>Cannot connect to the node &quot;%1&quot;: %2</source>
        <translation>ノード「%1」に接続できません: %2</translation>
    </message>
    <message>
        <source>The run was not recorded: %1</source>
        <translation>実行は記録されませんでした: %1</translation>
    </message>
    <message>
        <source>(The store reported a problem: %1)</source>
        <translation>(ストアが問題を報告しました: %1)</translation>
    </message>
    <message>
        <source>Run %1 is no longer stored.</source>
        <translation>実行 %1 はもう保存されていません。</translation>
    </message>
    <message>
        <source>Run %1 is not detached (it is &quot;%2&quot;); only a detached run on an SSH node can be re-attached.</source>
        <translation>実行 %1 は切り離されていません(状態:「%2」)。再接続できるのは SSH ノード上の切り離された実行だけです。</translation>
    </message>
    <message>
        <source>The node &quot;%1&quot; of run %2 is no longer an SSH node of this workspace.</source>
        <translation>実行 %2 のノード「%1」は、このワークスペースの SSH ノードではなくなりました。</translation>
    </message>
    <message>
        <source>Cannot connect to the node &quot;%1&quot;: %2; run %3 stays detached.</source>
        <translation>ノード「%1」に接続できません: %2。実行 %3 は切り離されたままです。</translation>
    </message>
    <message>
        <source>Run %1 cannot be re-attached: %2</source>
        <translation>実行 %1 を再接続できません: %2</translation>
    </message>
    <message>
        <source>%1 detached: its ranks go on running on the node; re-attach run %2 from the Runs page.</source>
        <translation>%1 を切り離しました: ランクはノード上で実行を続けます。実行ページから実行 %2 を再接続してください。</translation>
    </message>
    <message>
        <source>Run %1 cannot be abandoned: %2</source>
        <translation>実行 %1 を放棄できません: %2</translation>
    </message>
    <message>
        <source>Run %1 abandoned: kept as lost.</source>
        <translation>実行 %1 を放棄しました: 喪失として保存しました。</translation>
    </message>
    <message>
        <source>Ranks still running were stopped on %1.</source>
        <translation>まだ動いていたランクを %1 で停止しました。</translation>
    </message>
    <message>
        <source>Not reached, so its ranks may still be running: %1.</source>
        <translation>到達できなかったため、ランクがまだ動いている可能性があります: %1。</translation>
    </message>
    <message>
        <source>The steps recorded before the detach could not be read: %1</source>
        <translation>切り離し前に記録されたステップを読み込めませんでした: %1</translation>
    </message>
    <message>
        <source>%1, run %2: %3.</source>
        <translation>%1、実行 %2: %3。</translation>
    </message>
    <message>
        <source>Abandoning run %1 was cancelled; it stays detached.</source>
        <translation>実行 %1 の放棄はキャンセルされました。切り離されたままです。</translation>
    </message>
    <message>
        <source>The node &quot;%1&quot; cannot run the torch backend: %2</source>
        <translation>ノード「%1」では torch バックエンドを実行できません: %2</translation>
    </message>
    <message>
        <source>shardwise-torch-runner (the torch backend) was not found: set SHARDWISE_TORCH_RUNNER or install it beside shardwise-runner.</source>
        <translation>shardwise-torch-runner (torch バックエンド) が見つかりません: SHARDWISE_TORCH_RUNNER を設定するか、shardwise-runner の隣にインストールしてください。</translation>
    </message>
    <message>
        <source>%1 completed, %2: peak allocated %3 per rank (memory only)</source>
        <translation>%1 完了、%2：ランクあたりのピーク割り当て %3（メモリのみ）</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::RunOriginBar</name>
    <message>
        <source>Re&amp;move run…</source>
        <translation>実行を削除(&amp;M)…</translation>
    </message>
    <message numerus="yes">
        <source>%n run(s) on node “example” are examples shipped with Shardwise: the project&apos;s own measurements on an NVIDIA H200, each with the planner&apos;s prediction for it.</source>
        <translation>
            <numerusform>ノード「example」上の %n 件の実行は Shardwise に同梱のサンプルです。プロジェクト自身が NVIDIA H200 で計測したもので、それぞれにプランナーの予測が付いています。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n run(s) are published results (launcher “published”).</source>
        <translation>
            <numerusform>%n 件の実行は公開された結果です（ランチャー「published」）。</numerusform>
        </translation>
    </message>
    <message>
        <source>They are read-only: they cannot be removed or edited as your own runs.</source>
        <translation>これらは読み取り専用で、自分の実行のように削除や編集はできません。</translation>
    </message>
    <message>
        <source>Select one of your runs in the table to remove it with everything recorded for it.</source>
        <translation>表で自分の実行を選ぶと、その実行を記録されたすべてとともに削除できます。</translation>
    </message>
    <message>
        <source>Run %1 is %2 run shipped with Shardwise: read-only, it cannot be removed.</source>
        <translation>実行 %1 は Shardwise に同梱された%2です。読み取り専用のため削除できません。</translation>
    </message>
    <message>
        <source>an example</source>
        <translation>サンプルの実行</translation>
    </message>
    <message>
        <source>a published</source>
        <translation>公開結果の実行</translation>
    </message>
    <message>
        <source>Remove run %1 with everything recorded for it.</source>
        <translation>実行 %1 を、記録されたすべてとともに削除します。</translation>
    </message>
    <message>
        <source>Remove run</source>
        <translation>実行を削除</translation>
    </message>
    <message>
        <source>Remove run %1 with everything recorded for it? This cannot be undone.</source>
        <translation>実行 %1 を、記録されたすべてとともに削除しますか? この操作は元に戻せません。</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::RunQueueModel</name>
    <message>
        <source>Queued (%1)</source>
        <translation>キュー内（%1）</translation>
    </message>
    <message>
        <source>Running, step %1 of %2</source>
        <translation>実行中、ステップ %1 / %2</translation>
    </message>
    <message>
        <source>Running</source>
        <translation>実行中</translation>
    </message>
    <message numerus="yes">
        <source>%n rank(s)</source>
        <translation>
            <numerusform>%n ランク</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 + %2 steps</source>
        <extracomment>warm-up steps + timed steps of a queued run</extracomment>
        <translation>%1 + %2 ステップ</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状態</translation>
    </message>
    <message>
        <source>Strategy</source>
        <translation>戦略</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>モデル</translation>
    </message>
    <message>
        <source>Ranks</source>
        <translation>ランク数</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>ステップ</translation>
    </message>
    <message>
        <source>Node</source>
        <translation>ノード</translation>
    </message>
    <message>
        <source>Abandoning run %1</source>
        <translation>実行 %1 を放棄中</translation>
    </message>
    <message>
        <source>Queued (%1): abandon run %2</source>
        <translation>待機中 (%1): 実行 %2 を放棄</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <comment>strategy (backend)</comment>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>The median step time so far times the steps left (warm-up and timed); estimated from two steps on.</source>
        <translation>これまでのステップ時間の中央値 × 残りのステップ数（ウォームアップと計測）。2 ステップ完了後から推定します。</translation>
    </message>
    <message>
        <source>All its steps at the step time the plan predicted; unknown for a run without a prediction.</source>
        <translation>すべてのステップをプランが予測したステップ時間で見積もります。予測のない実行では不明です。</translation>
    </message>
    <message>
        <source>Elapsed</source>
        <translation>経過時間</translation>
    </message>
    <message>
        <source>Time left</source>
        <extracomment>the time a run still needs</extracomment>
        <translation>残り時間</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::RunRequestForm</name>
    <message>
        <source>The model presets could not be loaded: %1</source>
        <translation>モデルのプリセットを読み込めませんでした: %1</translation>
    </message>
    <message>
        <source>CPU (fp32, Gloo)</source>
        <translation>CPU（fp32、Gloo）</translation>
    </message>
    <message>
        <source>CUDA GPUs (bf16, NCCL)</source>
        <translation>CUDA GPU（bf16、NCCL）</translation>
    </message>
    <message>
        <source>CPU runs measure the sharding schedule, not GPU speed; CUDA needs a runner built with CUDA.</source>
        <translation>CPU での実行はシャーディングのスケジュールを計測するもので、GPU の速度ではありません。CUDA には CUDA 対応でビルドしたランナーが必要です。</translation>
    </message>
    <message>
        <source>CUDA allocator with expandable segments</source>
        <translation>拡張可能セグメント付き CUDA アロケータ</translation>
    </message>
    <message>
        <source>Sets expandable_segments:True: a diagnostic for fragmentation (a large reserved but unallocated amount at an out-of-memory error), not a cure.</source>
        <translation>expandable_segments:True を設定します。これは断片化（メモリ不足エラー時に予約済みだが未割り当ての量が大きい）の診断であり、解決策ではありません。</translation>
    </message>
    <message>
        <source>&amp;Queue run</source>
        <translation>実行をキューに追加(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Model:</source>
        <translation>モデル(&amp;M):</translation>
    </message>
    <message>
        <source>&amp;Strategy:</source>
        <translation>戦略(&amp;S):</translation>
    </message>
    <message>
        <source>&amp;Device:</source>
        <translation>デバイス(&amp;D):</translation>
    </message>
    <message>
        <source>N&amp;ode:</source>
        <translation>ノード(&amp;O):</translation>
    </message>
    <message>
        <source>&amp;Ranks:</source>
        <translation>ランク数(&amp;R):</translation>
    </message>
    <message>
        <source>&amp;Warm-up:</source>
        <translation>ウォームアップ(&amp;W):</translation>
    </message>
    <message>
        <source>&amp;Timed:</source>
        <translation>計測(&amp;T):</translation>
    </message>
    <message>
        <source>Sequence &amp;length:</source>
        <translation>シーケンス長(&amp;L):</translation>
    </message>
    <message>
        <source>Micro-&amp;batch:</source>
        <translation>マイクロバッチ(&amp;B):</translation>
    </message>
    <message>
        <source>Where the ranks run: this machine, or an SSH node prepared on the Nodes page.</source>
        <translation>ランクを実行する場所: このマシン、または「ノード」ページで準備した SSH ノード。</translation>
    </message>
    <message>
        <source>Replay each step as a CUDA graph</source>
        <translation>各ステップを CUDA グラフとして再生</translation>
    </message>
    <message>
        <source>The runner captures the whole step after two eager steps and replays it as one graph launch. Needs CUDA, a GPU-resident strategy (no CPU offload) and at least 3 warm-up steps.</source>
        <translation>ランナーはグラフなしの 2 ステップの後にステップ全体を記録し、1 回のグラフ起動として再生します。CUDA、状態を GPU に置く戦略（CPU オフロードなし）、3 ステップ以上のウォームアップが必要です。</translation>
    </message>
    <message>
        <source>What runs the ranks: Shardwise&apos;s runner, or PyTorch itself (DDP / FSDP2) to measure the framework the plan&apos;s fsdp2 target predicts.</source>
        <translation>ランクを実行するもの: Shardwise のランナー、またはプランの fsdp2 ターゲットが予測するフレームワークを計測するための PyTorch 本体 (DDP / FSDP2)。</translation>
    </message>
    <message>
        <source>Compile each decoder layer (torch.compile)</source>
        <translation>各デコーダー層をコンパイル (torch.compile)</translation>
    </message>
    <message>
        <source>Bac&amp;kend:</source>
        <translation>バックエンド(&amp;K):</translation>
    </message>
    <message>
        <source>The torch backend runs eager or compiled steps, not CUDA graphs.</source>
        <translation>torch バックエンドはステップを eager またはコンパイル済みで実行し、CUDA グラフは使いません。</translation>
    </message>
    <message>
        <source>torch.compile each decoder layer before the first step; the warm-up steps include the compilation.</source>
        <translation>最初のステップの前に各デコーダー層を torch.compile します。ウォームアップのステップにコンパイルが含まれます。</translation>
    </message>
    <message>
        <source>Only the torch backend runs PyTorch code to compile.</source>
        <translation>コンパイルできる PyTorch コードを実行するのは torch バックエンドだけです。</translation>
    </message>
    <message numerus="yes">
        <source>%n rank(s)</source>
        <translation>
            <numerusform>%n ランク</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n step(s)</source>
        <translation>
            <numerusform>%n ステップ</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n token(s)</source>
        <translation>
            <numerusform>%n トークン</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n sequence(s)</source>
        <translation>
            <numerusform>%n シーケンス</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>shardwise::gui::RunTableModel</name>
    <message>
        <source>completed</source>
        <translation>完了</translation>
    </message>
    <message>
        <source>out of memory</source>
        <translation>メモリ不足</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失敗</translation>
    </message>
    <message>
        <source>timed out</source>
        <translation>タイムアウト</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>キャンセル</translation>
    </message>
    <message>
        <source>running</source>
        <translation>実行中</translation>
    </message>
    <message>
        <source>detached (running on its nodes)</source>
        <translation>デタッチ済み（ノード上で実行中）</translation>
    </message>
    <message>
        <source>n/a</source>
        <translation>該当なし</translation>
    </message>
    <message>
        <source>none</source>
        <translation>なし</translation>
    </message>
    <message>
        <source>Check to include this run in the charts.</source>
        <translation>チェックするとこの実行をグラフに含めます。</translation>
    </message>
    <message>
        <source>Measured over %1 timed steps after %2 warm-up steps. %3</source>
        <translation>%2 ステップのウォームアップ後、%1 ステップで計測。%3</translation>
    </message>
    <message>
        <source>What the planner predicted for this configuration before it ran.</source>
        <translation>実行前にプランナーがこの構成について予測した値。</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>実行</translation>
    </message>
    <message>
        <source>Started</source>
        <translation>開始</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>モデル</translation>
    </message>
    <message>
        <source>Hardware</source>
        <translation>ハードウェア</translation>
    </message>
    <message>
        <source>Node</source>
        <translation>ノード</translation>
    </message>
    <message>
        <source>Strategy</source>
        <translation>戦略</translation>
    </message>
    <message>
        <source>Outcome</source>
        <translation>結果</translation>
    </message>
    <message>
        <source>Throughput</source>
        <translation>スループット</translation>
    </message>
    <message>
        <source>Peak allocated</source>
        <translation>ピーク割り当て</translation>
    </message>
    <message>
        <source>Peak reserved</source>
        <translation>ピーク予約</translation>
    </message>
    <message>
        <source>NCCL share</source>
        <translation>NCCL 比率</translation>
    </message>
    <message>
        <source>Predicted throughput</source>
        <translation>予測スループット</translation>
    </message>
    <message>
        <source>The planner&apos;s prediction with its built-in (uncalibrated) coefficients.</source>
        <translation>プランナー組み込みの(キャリブレーションしていない)係数による予測です。</translation>
    </message>
    <message>
        <source>The planner&apos;s prediction with the calibration the run store supports for this GPU (the line above the table names it). It is fitted to these same runs: in-sample.</source>
        <translation>この GPU について実行ストアから得られるキャリブレーション(表の上の行に表示)を用いたプランナーの予測です。これらと同じ実行に適合させています: インサンプル。</translation>
    </message>
    <message>
        <source>(predicted - measured) / measured; positive means the prediction was too high.</source>
        <translation>(予測 - 実測) / 実測。正の値は予測が高すぎたことを意味します。</translation>
    </message>
    <message>
        <source>Whether the prediction says the run fits in GPU memory; &quot;wrong&quot; where the outcome contradicts it (an out-of-memory run predicted to fit, or a completed one predicted not to).</source>
        <translation>予測がこの実行を GPU メモリに収まるとしているかどうか。結果と矛盾する場合(収まると予測されたのにメモリ不足になった、または収まらないと予測されたのに完了した)は「誤り」と表示します。</translation>
    </message>
    <message>
        <source>Presets throughput</source>
        <translation>スループット(プリセット)</translation>
    </message>
    <message>
        <source>Presets throughput error</source>
        <translation>スループット誤差(プリセット)</translation>
    </message>
    <message>
        <source>Calibrated throughput</source>
        <translation>スループット(キャリブレーション済み)</translation>
    </message>
    <message>
        <source>Calibrated throughput error</source>
        <translation>スループット誤差(キャリブレーション済み)</translation>
    </message>
    <message>
        <source>Presets peak</source>
        <translation>ピーク(プリセット)</translation>
    </message>
    <message>
        <source>Presets peak error</source>
        <translation>ピーク誤差(プリセット)</translation>
    </message>
    <message>
        <source>Calibrated peak</source>
        <translation>ピーク(キャリブレーション済み)</translation>
    </message>
    <message>
        <source>Calibrated peak error</source>
        <translation>ピーク誤差(キャリブレーション済み)</translation>
    </message>
    <message>
        <source>Presets verdict</source>
        <translation>判定(プリセット)</translation>
    </message>
    <message>
        <source>Calibrated verdict</source>
        <translation>判定(キャリブレーション済み)</translation>
    </message>
    <message>
        <source>No prediction to compare: only completed or out-of-memory runs on a known GPU preset, with their configuration stored, are predicted.</source>
        <translation>比較する予測がありません: 予測されるのは、既知の GPU プリセット上で完了またはメモリ不足になり、構成が保存されている実行だけです。</translation>
    </message>
    <message>
        <source>Backend</source>
        <translation>バックエンド</translation>
    </message>
    <message>
        <source>What ran the ranks: native (Shardwise&apos;s runner) or torch (PyTorch&apos;s DDP / FSDP2).</source>
        <translation>ランクを実行したもの: native (Shardwise のランナー) または torch (PyTorch の DDP / FSDP2)。</translation>
    </message>
    <message>
        <source>World</source>
        <translation>ワールド</translation>
    </message>
    <message>
        <source>The ranks that ran; for a rehearsal, the world its one rank stood for.</source>
        <translation>実行したランク数。リハーサルでは、その 1 ランクが代表したワールド。</translation>
    </message>
    <message>
        <source>%1 Rank 0&apos;s at world %2 (rehearsal); predicted for world %2: %3.</source>
        <translation>%1 ワールド %2 でのランク 0 の値（リハーサル）。ワールド %2 の予測：%3。</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>精度</translation>
    </message>
    <message>
        <source>The precision the run asked for; a run on the CPU computes in fp32 whatever it asked.</source>
        <translation>実行が指定した精度。CPU 上の実行は指定にかかわらず fp32 で計算します。</translation>
    </message>
    <message>
        <source>Sequence</source>
        <translation>シーケンス</translation>
    </message>
    <message>
        <source>Tokens per sequence.</source>
        <translation>1 シーケンスあたりのトークン数。</translation>
    </message>
    <message>
        <source>Micro-batch</source>
        <translation>マイクロバッチ</translation>
    </message>
    <message>
        <source>Sequences per rank in each step.</source>
        <translation>各ステップでランクあたりのシーケンス数。</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::RunsPage</name>
    <message>
        <source>&amp;Cancel</source>
        <translation>キャンセル(&amp;C)</translation>
    </message>
    <message>
        <source>Stops the selected run (its ranks get SIGTERM, then SIGKILL) or takes a queued one off the queue.</source>
        <translation>選択した実行を停止する（ランクに SIGTERM、次に SIGKILL を送る）か、キュー内の実行を取り除きます。</translation>
    </message>
    <message>
        <source>R&amp;efresh</source>
        <translation>更新(&amp;E)</translation>
    </message>
    <message>
        <source>New run</source>
        <translation>新しい実行</translation>
    </message>
    <message>
        <source>Queue</source>
        <translation>キュー</translation>
    </message>
    <message>
        <source>History</source>
        <translation>履歴</translation>
    </message>
    <message>
        <source>Ranks</source>
        <translation>ランク数</translation>
    </message>
    <message>
        <source>Log</source>
        <translation>ログ</translation>
    </message>
    <message>
        <source>Diagnosis</source>
        <translation>診断</translation>
    </message>
    <message>
        <source>Adds the run to the queue; runs are measured one after another.</source>
        <translation>実行をキューに追加します。実行は 1 つずつ計測されます。</translation>
    </message>
    <message>
        <source>shardwise-runner was not found: set SHARDWISE_RUNNER or install it beside this program.</source>
        <translation>shardwise-runner が見つかりません。SHARDWISE_RUNNER を設定するか、このプログラムと同じ場所にインストールしてください。</translation>
    </message>
    <message>
        <source>The run cannot be queued: %1</source>
        <translation>実行をキューに追加できません: %1</translation>
    </message>
    <message numerus="yes">
        <source>Queued %1 on %2 with %n rank(s).</source>
        <translation>
            <numerusform>%1 を %2 に %n ランクでキューに追加しました。</numerusform>
        </translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation>キャンセル中…</translation>
    </message>
    <message>
        <source>The run history could not be read: %1</source>
        <translation>実行履歴を読み込めませんでした: %1</translation>
    </message>
    <message>
        <source>Run %1 is still running.</source>
        <translation>実行 %1 はまだ実行中です。</translation>
    </message>
    <message>
        <source>Select a run that did not complete to see why.</source>
        <translation>完了しなかった実行を選ぶと理由が表示されます。</translation>
    </message>
    <message>
        <source>Run %1 is no longer stored.</source>
        <translation>実行 %1 はもう保存されていません。</translation>
    </message>
    <message>
        <source>Run %1 completed; there is nothing to diagnose.</source>
        <translation>実行 %1 は完了しました。診断するものはありません。</translation>
    </message>
    <message>
        <source>Run %1 ended as &quot;%2&quot; without a stored diagnosis. %3</source>
        <translation>実行 %1 は保存された診断なしで「%2」として終了しました。%3</translation>
    </message>
    <message>
        <source>Run %1 could not be read: %2</source>
        <translation>実行 %1 を読み込めませんでした: %2</translation>
    </message>
    <message>
        <source>Run %1 has no stored configuration to rerun.</source>
        <translation>実行 %1 には再実行用の保存された構成がありません。</translation>
    </message>
    <message>
        <source>Queued a rerun of run %1: %2</source>
        <translation>実行 %1 の再実行をキューに追加しました: %2</translation>
    </message>
    <message>
        <source>Run %1 cannot be rerun: %2</source>
        <translation>実行 %1 は再実行できません: %2</translation>
    </message>
    <message>
        <source>Re-&amp;attach</source>
        <translation>再接続(&amp;A)</translation>
    </message>
    <message>
        <source>Follows the selected detached run again: its ranks kept running on their SSH node, and what they wrote since is recorded into the same run.</source>
        <translation>選択した切り離し中の実行を再び追跡します。ランクは SSH ノード上で実行を続けており、その間に出力された内容は同じ実行に記録されます。</translation>
    </message>
    <message>
        <source>Run %1 is not detached; only a detached run can be re-attached.</source>
        <translation>実行 %1 は切り離されていません。再接続できるのは切り離された実行だけです。</translation>
    </message>
    <message>
        <source>Re-attaching run %1 on %2.</source>
        <translation>%2 上の実行 %1 を再接続しています。</translation>
    </message>
    <message>
        <source>Run %1 cannot be re-attached: %2</source>
        <translation>実行 %1 を再接続できません: %2</translation>
    </message>
    <message>
        <source>Aba&amp;ndon…</source>
        <translation>放棄(&amp;N)…</translation>
    </message>
    <message>
        <source>Abandon run %1</source>
        <translation>実行 %1 を放棄</translation>
    </message>
    <message>
        <source>Run %1 cannot be abandoned: %2</source>
        <translation>実行 %1 を放棄できません: %2</translation>
    </message>
    <message>
        <source>Gives up the selected detached run for good: its ranks still running are stopped on every node that answers, and it is kept as lost, no longer offered for re-attaching.</source>
        <translation>選択した切り離し済みの実行を完全に放棄します。応答するすべてのノードでまだ動いているランクを停止し、喪失として保存して、再接続の候補から外します。</translation>
    </message>
    <message>
        <source>Abandon run %1? On every node of the run that answers, its ranks still running are stopped; the run is kept as lost and can no longer be re-attached.</source>
        <translation>実行 %1 を放棄しますか? 応答するこの実行のすべてのノードで、まだ動いているランクを停止します。実行は喪失として保存され、再接続できなくなります。</translation>
    </message>
    <message>
        <source>Run %1 is not detached; only a detached run can be abandoned.</source>
        <translation>実行 %1 は切り離されていません。放棄できるのは切り離された実行だけです。</translation>
    </message>
    <message>
        <source>Abandoning run %1: stopping its ranks where its node answers.</source>
        <translation>実行 %1 を放棄中: ノードが応答する場所でランクを停止しています。</translation>
    </message>
    <message>
        <source>The queue is empty.</source>
        <translation>キューは空です。</translation>
    </message>
    <message numerus="yes">
        <source>%n run(s) in the queue; time left unknown: a queued run carries no predicted step time.</source>
        <translation>
            <numerusform>キュー内に %n 件の実行。残り時間は不明です: キュー内の実行に予測ステップ時間がありません。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n run(s) in the queue; time left: %1.</source>
        <translation>
            <numerusform>キュー内に %n 件の実行。残り時間: %1。</numerusform>
        </translation>
    </message>
    <message>
        <source>The running run has run for %1.</source>
        <translation>実行中の実行の経過時間: %1。</translation>
    </message>
    <message>
        <source>Run %1 ended as &quot;%2&quot;. %3</source>
        <extracomment>status line after a run failed: run id, how it ended, the diagnosis&apos;s headline</extracomment>
        <translation>実行 %1 は「%2」として終了しました。%3</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::SshNodeDialog</name>
    <message>
        <source>Add SSH node</source>
        <translation>SSH ノードの追加</translation>
    </message>
    <message>
        <source>e.g. gpu-box-1</source>
        <translation>例: gpu-box-1</translation>
    </message>
    <message>
        <source>host name or IP address</source>
        <translation>ホスト名または IP アドレス</translation>
    </message>
    <message>
        <source>SSH agent</source>
        <translation>SSH エージェント</translation>
    </message>
    <message>
        <source>Private key file</source>
        <translation>秘密鍵ファイル</translation>
    </message>
    <message>
        <source>&amp;Browse…</source>
        <translation>参照(&amp;B)…</translation>
    </message>
    <message>
        <source>&amp;Name:</source>
        <translation>名前(&amp;N):</translation>
    </message>
    <message>
        <source>&amp;Host:</source>
        <translation>ホスト(&amp;H):</translation>
    </message>
    <message>
        <source>&amp;Port:</source>
        <translation>ポート(&amp;P):</translation>
    </message>
    <message>
        <source>&amp;User:</source>
        <translation>ユーザー(&amp;U):</translation>
    </message>
    <message>
        <source>&amp;Authentication:</source>
        <translation>認証(&amp;A):</translation>
    </message>
    <message>
        <source>&amp;Key file:</source>
        <translation>鍵ファイル(&amp;K):</translation>
    </message>
    <message>
        <source>Private key</source>
        <translation>秘密鍵</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::WhatIfPanel</name>
    <message>
        <source>The values to plan, separated by commas (at most %1); every other setting is the form&apos;s.</source>
        <translation>計画する値をカンマ区切りで指定します（最大 %1 個）。その他の設定はフォームのものです。</translation>
    </message>
    <message>
        <source>Fits</source>
        <translation>収まるか</translation>
    </message>
    <message>
        <source>Peak per GPU</source>
        <translation>GPU あたりのピーク</translation>
    </message>
    <message>
        <source>Tokens/s</source>
        <translation>トークン/秒</translation>
    </message>
    <message>
        <source>Columns:</source>
        <translation>列:</translation>
    </message>
    <message>
        <source>Show:</source>
        <translation>表示:</translation>
    </message>
    <message>
        <source>Rows:</source>
        <translation>行:</translation>
    </message>
    <message>
        <source>Sequence</source>
        <translation>シーケンス</translation>
    </message>
    <message>
        <source>Micro-batch</source>
        <translation>マイクロバッチ</translation>
    </message>
    <message>
        <source>GPUs per node</source>
        <translation>ノードあたりの GPU</translation>
    </message>
    <message>
        <source>Nodes</source>
        <translation>ノード</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>メモリ</translation>
    </message>
    <message>
        <source>What if</source>
        <translation>もしも</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>%1: at most %2 values, got %3</source>
        <translation>%1: 値は最大 %2 個ですが、%3 個あります</translation>
    </message>
    <message>
        <source>Cannot plan the grid: %1</source>
        <translation>グリッドを計画できません: %1</translation>
    </message>
    <message>
        <source>none</source>
        <translation>なし</translation>
    </message>
    <message>
        <source>Sequence %1, micro-batch %2, GPUs per node %3, nodes %4, world %5</source>
        <translation>シーケンス %1、マイクロバッチ %2、ノードあたりの GPU %3、ノード %4、ワールド %5</translation>
    </message>
    <message>
        <source>Recommended: %1</source>
        <translation>推奨: %1</translation>
    </message>
    <message>
        <source>Nothing fits; the lowest peak is %1&apos;s</source>
        <translation>どれも収まりません。ピークが最も低いのは %1 です</translation>
    </message>
    <message>
        <source>Peak per GPU: %1</source>
        <translation>GPU あたりのピーク: %1</translation>
    </message>
    <message>
        <source>Predicted: %1</source>
        <translation>予測: %1</translation>
    </message>
    <message>
        <source>Each cell names the recommended strategy: green where it fits, red where nothing fits. Hover a cell for its peak and tokens/s.</source>
        <translation>各セルは推奨戦略を示します。収まる場合は緑、どれも収まらない場合は赤です。セルにカーソルを合わせるとピークとトークン/秒が表示されます。</translation>
    </message>
    <message>
        <source>The planned peak per GPU, the plan&apos;s one peak figure: a darker cell needs more. Red: nothing fits, the figure is the lowest peak of any strategy.</source>
        <translation>計画上の GPU あたりのピーク（プランの唯一のピーク値）です。色が濃いセルほど多く必要です。赤: どれも収まらず、値は全戦略で最も低いピークです。</translation>
    </message>
    <message>
        <source>Predicted tokens/s of all GPUs together: a darker cell is faster. Red: nothing fits.</source>
        <translation>全 GPU 合計の予測トークン/秒です。色が濃いセルほど高速です。赤: どれも収まりません。</translation>
    </message>
    <message>
        <source>The form&apos;s own settings.</source>
        <translation>フォーム自体の設定です。</translation>
    </message>
</context>
<context>
    <name>shardwise::gui::Workspace</name>
    <message>
        <source>unknown device</source>
        <translation>不明なデバイス</translation>
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
        <translation>、%1 ノード</translation>
    </message>
    <message>
        <source>The process recording this run stopped answering; it was interrupted.</source>
        <translation>この実行を記録していたプロセスが応答しなくなったため、実行は中断されました。</translation>
    </message>
    <message>
        <source>Cannot open the workspace %1: %2</source>
        <translation>ワークスペース %1 を開けません: %2</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>不明</translation>
    </message>
    <message>
        <source>PyTorch %1, Transformers %2 (model: %3), Python %4</source>
        <translation>PyTorch %1、Transformers %2 (モデル: %3)、Python %4</translation>
    </message>
    <message>
        <source>not installed</source>
        <translation>未インストール</translation>
    </message>
    <message>
        <source>The example runs were not loaded: %1</source>
        <translation>サンプルの実行を読み込めませんでした: %1</translation>
    </message>
    <message>
        <source>There is no run %1 in this workspace.</source>
        <translation>このワークスペースに実行 %1 はありません。</translation>
    </message>
    <message>
        <source>Run %1 is an example shipped with Shardwise (measured by the project on an NVIDIA H200). Example and published runs are read-only: they cannot be removed.</source>
        <translation>実行 %1 は Shardwise に同梱のサンプルです（プロジェクトが NVIDIA H200 で計測）。サンプルの実行と公開結果の実行は読み取り専用のため削除できません。</translation>
    </message>
    <message>
        <source>Run %1 could not be removed: %2</source>
        <translation>実行 %1 を削除できませんでした: %2</translation>
    </message>
    <message>
        <source>%1: cannot be read</source>
        <translation>%1: 読み込めません</translation>
    </message>
    <message numerus="yes">
        <source>Imported %n run(s) from %1.</source>
        <translation>
            <numerusform>%1 から %n 件の実行をインポートしました。</numerusform>
        </translation>
    </message>
    <message>
        <source>%1: %2; nothing was imported.</source>
        <translation>%1: %2。何もインポートされませんでした。</translation>
    </message>
</context>
</TS>
