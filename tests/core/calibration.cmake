shardwise_add_test(test_calibration SOURCES test_calibration.cpp LIBS Shardwise::calibrate)

# From the run store (a real SQLite file) and through `shardwise-cli compare` (a real process).
if(TARGET shardwise_calibrate_store AND TARGET shardwise-cli)
    shardwise_add_test(test_calibration_store SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_calibration_store.cpp
        LIBS Shardwise::calibrate_store LABELS store)
    target_compile_definitions(test_calibration_store PRIVATE SHARDWISE_CLI="$<TARGET_FILE:shardwise-cli>")
    add_dependencies(test_calibration_store shardwise-cli)
endif()
