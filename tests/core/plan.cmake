shardwise_add_test(test_plan SOURCES test_plan.cpp LIBS Shardwise::plan)
# What-if sweeps: monotonic facts over the grid, every point equal to a single plan, bad axes refused.
shardwise_add_test(test_plan_sweep SOURCES test_plan_sweep.cpp LIBS Shardwise::plan)
shardwise_add_test(test_framework_estimate SOURCES test_framework_estimate.cpp LIBS Shardwise::plan)
# The DeepSpeed target's precision as DeepSpeed allocates it, and ZeRO-3 against FSDP's full shard
# beside the published same-setup figures (bench/published).
shardwise_add_test(test_deepspeed_precision SOURCES test_deepspeed_precision.cpp LIBS Shardwise::plan
    Shardwise::published)
# The core's message ids: English templates for every id the sources emit, complete renderings.
shardwise_add_test(test_messages SOURCES test_messages.cpp LIBS Shardwise::plan Shardwise::diagnose)
if(TARGET shardwise-cli)
    # The plan's peak as the CLI prints it (table and JSON) against core/plan's figures.
    shardwise_add_test(test_plan_peak SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_plan_peak.cpp LIBS Shardwise::plan)
    target_compile_definitions(test_plan_peak PRIVATE SHARDWISE_CLI="$<TARGET_FILE:shardwise-cli>")
    add_dependencies(test_plan_peak shardwise-cli)
endif()
