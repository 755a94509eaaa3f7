# core/store suites. Every one works on a real SQLite file in a QTemporaryDir.
add_executable(store_run_writer ${CMAKE_CURRENT_LIST_DIR}/store_fixtures/run_writer.cpp)
target_link_libraries(store_run_writer PRIVATE Shardwise::store)
set_target_properties(store_run_writer PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests/bin)
shardwise_warnings(store_run_writer)

shardwise_add_test(test_store_crash SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_store_crash.cpp LIBS Shardwise::store
    TIMEOUT 120 LABELS store)
target_compile_definitions(test_store_crash PRIVATE STORE_RUN_WRITER="$<TARGET_FILE:store_run_writer>")
target_include_directories(test_store_crash PRIVATE ${CMAKE_CURRENT_LIST_DIR})
add_dependencies(test_store_crash store_run_writer)

shardwise_add_test(test_store_schema SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_store_schema.cpp
    LIBS Shardwise::store SQLite::SQLite3 LABELS store)
target_include_directories(test_store_schema PRIVATE ${CMAKE_CURRENT_LIST_DIR})

shardwise_add_test(test_store_concurrency SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_store_concurrency.cpp
    LIBS Shardwise::store TIMEOUT 180 LABELS store)
target_compile_definitions(test_store_concurrency PRIVATE STORE_RUN_WRITER="$<TARGET_FILE:store_run_writer>")
target_include_directories(test_store_concurrency PRIVATE ${CMAKE_CURRENT_LIST_DIR})
add_dependencies(test_store_concurrency store_run_writer)

shardwise_add_test(test_store_runs SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_store_runs.cpp LIBS Shardwise::store LABELS store)
target_include_directories(test_store_runs PRIVATE ${CMAKE_CURRENT_LIST_DIR})

shardwise_add_test(test_store_exchange SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_store_exchange.cpp LIBS Shardwise::store
    LABELS store)
target_include_directories(test_store_exchange PRIVATE ${CMAKE_CURRENT_LIST_DIR})

if(TARGET shardwise-cli)
    shardwise_add_test(test_store_cli SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_store_cli.cpp LIBS Shardwise::store
        LABELS store)
    target_compile_definitions(test_store_cli PRIVATE SHARDWISE_CLI="$<TARGET_FILE:shardwise-cli>")
    target_include_directories(test_store_cli PRIVATE ${CMAKE_CURRENT_LIST_DIR})
    add_dependencies(test_store_cli shardwise-cli)
endif()

# These two start runner ranks as well (a build without the runner, such as the fuzz build, skips them).
if(TARGET shardwise-cli AND TARGET shardwise-runner)
    shardwise_add_test(test_store_open_guard SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_store_open_guard.cpp
        LIBS Shardwise::store TIMEOUT 180 LABELS store)
    target_compile_definitions(test_store_open_guard PRIVATE SHARDWISE_CLI="$<TARGET_FILE:shardwise-cli>"
        SHARDWISE_RUNNER="$<TARGET_FILE:shardwise-runner>")
    target_include_directories(test_store_open_guard PRIVATE ${CMAKE_CURRENT_LIST_DIR})
    add_dependencies(test_store_open_guard shardwise-cli shardwise-runner)

    shardwise_add_test(test_store_writer_liveness SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_store_writer_liveness.cpp
        LIBS Shardwise::store TIMEOUT 180 LABELS store)
    target_compile_definitions(test_store_writer_liveness PRIVATE SHARDWISE_CLI="$<TARGET_FILE:shardwise-cli>"
        SHARDWISE_RUNNER="$<TARGET_FILE:shardwise-runner>")
    add_dependencies(test_store_writer_liveness shardwise-cli shardwise-runner)
endif()

shardwise_add_test(test_store_remote_follow SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_store_remote_follow.cpp
    LIBS Shardwise::store SQLite::SQLite3 LABELS store)
target_include_directories(test_store_remote_follow PRIVATE ${CMAKE_CURRENT_LIST_DIR})

# Named saved plans: saved, listed, renamed and removed; bad and taken names refused; schema 10 migrated.
shardwise_add_test(test_store_saved_plans SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_store_saved_plans.cpp
    LIBS Shardwise::store LABELS store)
