shardwise_add_test(test_plan SOURCES test_plan.cpp LIBS Shardwise::plan)
shardwise_add_test(test_framework_estimate SOURCES test_framework_estimate.cpp LIBS Shardwise::plan)
