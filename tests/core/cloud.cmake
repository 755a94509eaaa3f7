# core/cloud and core/interruption suites.
# test_cloud links the planner to build the verdicts the CLI and the Cloud page pass.
shardwise_add_test(test_cloud SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cloud.cpp LIBS Shardwise::cloud Shardwise::plan
    LABELS cloud)
shardwise_add_test(test_interruption SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_interruption.cpp
    LIBS Shardwise::interruption LABELS cloud)

if(TARGET shardwise-cli)
    # Golden files: tests/data/gke/<case>/{args,out.txt,out.json,out.yaml} (one folder per case).
    # SHARDWISE_REGENERATE_GOLDEN=1 ctest -R test_cloud_cli rewrites them from the current output.
    shardwise_add_test(test_cloud_cli SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cloud_cli.cpp
        LIBS Shardwise::cloud Shardwise::interruption Shardwise::plan Shardwise::store LABELS cloud)
    target_compile_definitions(test_cloud_cli PRIVATE SHARDWISE_CLI="$<TARGET_FILE:shardwise-cli>")
    add_dependencies(test_cloud_cli shardwise-cli)
endif()
