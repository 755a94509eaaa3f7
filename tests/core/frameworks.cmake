# core/frameworks: golden exports (tests/data/framework_configs/<case>/), imports (ds_config.json,
# Accelerate YAML, torchtitan TOML) and the round trip; hostile and malformed files (caps, duplicates,
# numbers out of range, empty files);
# the torchtitan TOML, the FSDP2 script and the launch lines are checked by Python 3.11's tomllib,
# compile() and bash -n.
if(TARGET shardwise_frameworks)
    shardwise_add_test(test_framework_configs SOURCES test_framework_configs.cpp LIBS shardwise_frameworks yaml-cpp
        nlohmann_json::nlohmann_json)
    shardwise_add_test(test_framework_import SOURCES test_framework_import.cpp LIBS shardwise_frameworks
        nlohmann_json::nlohmann_json)
    shardwise_add_test(test_framework_import_limits SOURCES test_framework_import_limits.cpp LIBS shardwise_frameworks)
    find_package(Python3 3.11 COMPONENTS Interpreter)
    if(Python3_FOUND)
        add_test(NAME test_framework_toml
                 COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_framework_configs.py
                         ${SHARDWISE_TEST_DATA_DIR}/framework_configs)
        set_tests_properties(test_framework_toml PROPERTIES TIMEOUT 60)
    endif()
endif()
