# core/diagnose suites: classifiers per message variant, and whole runs from tests/data/diagnose.
shardwise_add_test(test_diagnose_classifiers SOURCES test_diagnose_classifiers.cpp LIBS Shardwise::diagnose)
shardwise_add_test(test_diagnose SOURCES test_diagnose.cpp LIBS Shardwise::diagnose)
if(TARGET shardwise-cli)
    # The suite runs the CLI as a real process when it is part of the build.
    add_dependencies(test_diagnose shardwise-cli)
endif()
# A hang: the rank that stopped emitting events is named first, from its event stream.
shardwise_add_test(test_diagnose_stopped_rank SOURCES test_diagnose_stopped_rank.cpp LIBS Shardwise::diagnose)
