# The Runs and Nodes pages, their item models and jobs. Included from tests/gui/CMakeLists.txt.
shardwise_add_test(test_gui_runs_models
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_runs_models.cpp ${CMAKE_CURRENT_LIST_DIR}/gui_test_main.hpp
    LIBS shardwise_gui
    LABELS gui)
# Run monitoring: time left, elapsed, the ranks' states at a run's end (real SQLite, core/diagnose).
shardwise_add_test(test_gui_run_monitoring
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_run_monitoring.cpp ${CMAKE_CURRENT_LIST_DIR}/gui_test_main.hpp
    LIBS shardwise_gui
    LABELS gui)

# Real CPU runs of the tiny model through the real runner: the runner this build produces.
if(TARGET shardwise-runner)
    set(runs_page_runner $<TARGET_FILE:shardwise-runner>)
else()
    set(runs_page_runner "")
endif()
shardwise_add_test(test_gui_runs_page
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_runs_page.cpp ${CMAKE_CURRENT_LIST_DIR}/gui_test_main.hpp
    LIBS shardwise_gui
    TIMEOUT 900
    LABELS gui runner)
target_compile_definitions(test_gui_runs_page PRIVATE SHARDWISE_TEST_RUNNER="${runs_page_runner}")
if(TARGET shardwise-runner)
    add_dependencies(test_gui_runs_page shardwise-runner)
endif()

# SSH nodes against a real sshd on loopback when tests/dispatch's fixture is built.
shardwise_add_test(test_gui_nodes_page
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_nodes_page.cpp ${CMAKE_CURRENT_LIST_DIR}/gui_test_main.hpp
    LIBS shardwise_gui
    TIMEOUT 300
    LABELS gui ssh)
if(TARGET shardwise_sshd_fixture)
    target_link_libraries(test_gui_nodes_page PRIVATE shardwise_sshd_fixture)
    target_compile_definitions(test_gui_nodes_page PRIVATE SHARDWISE_HAVE_SSHD_FIXTURE=1)
endif()
if(TARGET shardwise_sshd_fixture)
    target_link_libraries(test_gui_runs_page PRIVATE shardwise_sshd_fixture)
    target_compile_definitions(test_gui_runs_page PRIVATE SHARDWISE_HAVE_SSHD_FIXTURE=1)
endif()
# The Nodes page's Probe runs the build's real runner on this machine.
target_compile_definitions(test_gui_nodes_page PRIVATE SHARDWISE_TEST_RUNNER="${runs_page_runner}")
if(TARGET shardwise-runner)
    add_dependencies(test_gui_nodes_page shardwise-runner)
endif()

# Closing with a run on an SSH node detaches it; the Runs page re-attaches it (real sshd, real runner).
shardwise_add_test(test_gui_runs_reattach
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_runs_reattach.cpp ${CMAKE_CURRENT_LIST_DIR}/gui_test_main.hpp
    LIBS shardwise_gui
    TIMEOUT 900
    LABELS gui ssh runner)
target_compile_definitions(test_gui_runs_reattach PRIVATE SHARDWISE_TEST_RUNNER="${runs_page_runner}")
if(TARGET shardwise_sshd_fixture)
    target_link_libraries(test_gui_runs_reattach PRIVATE shardwise_sshd_fixture)
    target_compile_definitions(test_gui_runs_reattach PRIVATE SHARDWISE_HAVE_SSHD_FIXTURE=1)
endif()
if(TARGET shardwise-runner)
    add_dependencies(test_gui_runs_reattach shardwise-runner)
endif()
