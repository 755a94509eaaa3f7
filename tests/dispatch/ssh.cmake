# SSH node tests: a real OpenSSH sshd started by each test on loopback (sshd/sshd_fixture.*).
add_library(shardwise_sshd_fixture STATIC ${CMAKE_CURRENT_LIST_DIR}/sshd/sshd_fixture.cpp)
target_link_libraries(shardwise_sshd_fixture PUBLIC Qt6::Core Shardwise::dispatch)
target_include_directories(shardwise_sshd_fixture PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_compile_definitions(shardwise_sshd_fixture PRIVATE QT_NO_CAST_FROM_ASCII QT_NO_FOREACH)
shardwise_warnings(shardwise_sshd_fixture)

shardwise_add_test(test_ssh_shell_quote SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_ssh_shell_quote.cpp LIBS Shardwise::dispatch)
shardwise_add_test(test_ssh SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_ssh.cpp LIBS shardwise_sshd_fixture TIMEOUT 180 LABELS ssh)
shardwise_add_test(test_ssh_host_keys SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_ssh_host_keys.cpp LIBS shardwise_sshd_fixture TIMEOUT 180 LABELS ssh)
# ssh_config through OpenSSH's own `ssh -G` (no sshd needed; skips without an ssh program).
shardwise_add_test(test_ssh_config_openssh SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_ssh_config_openssh.cpp LIBS Shardwise::dispatch)
shardwise_add_test(test_ssh_config SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_ssh_config.cpp LIBS shardwise_sshd_fixture TIMEOUT 240 LABELS ssh)
shardwise_add_test(test_node SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_node.cpp LIBS shardwise_sshd_fixture TIMEOUT 240 LABELS ssh)
shardwise_add_test(test_remote_launch SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_remote_launch.cpp LIBS shardwise_sshd_fixture TIMEOUT 420 LABELS ssh)
if(TARGET shardwise-cli)
    add_dependencies(test_node shardwise-cli)
    add_dependencies(test_ssh_host_keys shardwise-cli)
    add_dependencies(test_ssh_config shardwise-cli)
endif()
# Run sessions over SSH into a real store file; the CPU runs need the runner and the CLI.
if(TARGET shardwise_session)
    shardwise_add_test(test_run_session SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_run_session.cpp
                       LIBS shardwise_sshd_fixture Shardwise::session TIMEOUT 900 LABELS ssh runner)
    if(TARGET shardwise-cli)
        target_compile_definitions(test_run_session PRIVATE SHARDWISE_CLI="$<TARGET_FILE:shardwise-cli>")
        add_dependencies(test_run_session shardwise-cli)
    else()
        target_compile_definitions(test_run_session PRIVATE SHARDWISE_CLI="")
    endif()
    if(TARGET shardwise-runner)
        add_dependencies(test_run_session shardwise-runner)
    endif()
endif()
# Hardware probes (shardwise-runner --probe) on this machine and over SSH into a real store file,
# and calibration from them; the CPU probes need the runner, the CLI cases the CLI.
if(TARGET shardwise_session AND TARGET shardwise_calibrate_store AND TARGET shardwise-cli)
    shardwise_add_test(test_probe_session SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_probe_session.cpp
                       LIBS shardwise_sshd_fixture Shardwise::session shardwise_calibrate_store TIMEOUT 900 LABELS ssh runner)
    target_compile_definitions(test_probe_session PRIVATE SHARDWISE_CLI="$<TARGET_FILE:shardwise-cli>")
    add_dependencies(test_probe_session shardwise-cli)
    if(TARGET shardwise-runner)
        add_dependencies(test_probe_session shardwise-runner)
    endif()
endif()
# The headless workflow through the real shardwise-cli: nodes add (an ssh config alias behind a
# bastion), nodes prepare, run --node, runs attach, runs abandon, against real sshd instances.
if(TARGET shardwise_session AND TARGET shardwise-cli)
    shardwise_add_test(test_headless_nodes SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_headless_nodes.cpp
                       LIBS shardwise_sshd_fixture Shardwise::session TIMEOUT 900 LABELS ssh runner)
    target_compile_definitions(test_headless_nodes PRIVATE SHARDWISE_CLI="$<TARGET_FILE:shardwise-cli>")
    add_dependencies(test_headless_nodes shardwise-cli)
    if(TARGET shardwise-runner)
        add_dependencies(test_headless_nodes shardwise-runner)
    endif()
endif()
