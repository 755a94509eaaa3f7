# One launch builder for both faces: the CLI's and the run queue's requests become the same launch
# (session::buildLaunch), and both faces start the same run alike into real SQLite stores (the CLI
# binary and a RunJob, with the launch fixture standing in for the runner). Included from
# tests/gui/CMakeLists.txt; compiles the CLI's request-to-launch file (app/cli/run_launch.cpp).
if(TARGET shardwise-cli AND TARGET launch_fixture AND TARGET shardwise_session)
    shardwise_add_test(test_launch_parity
        SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_launch_parity.cpp ${CMAKE_CURRENT_LIST_DIR}/gui_test_main.hpp
                ${PROJECT_SOURCE_DIR}/app/cli/run_launch.cpp
        LIBS shardwise_gui nlohmann_json::nlohmann_json
        TIMEOUT 300
        LABELS gui launch)
    target_include_directories(test_launch_parity PRIVATE ${PROJECT_SOURCE_DIR}/app/cli)
    target_compile_definitions(test_launch_parity PRIVATE
        LAUNCH_FIXTURE="$<TARGET_FILE:launch_fixture>" SHARDWISE_CLI="$<TARGET_FILE:shardwise-cli>")
    add_dependencies(test_launch_parity launch_fixture shardwise-cli)
endif()
