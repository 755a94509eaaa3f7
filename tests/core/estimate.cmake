shardwise_add_test(test_estimate SOURCES test_estimate.cpp LIBS Shardwise::estimate)
target_include_directories(test_estimate PRIVATE ${CMAKE_CURRENT_LIST_DIR})
shardwise_add_test(test_estimate_step_schedule SOURCES test_estimate_step_schedule.cpp LIBS Shardwise::estimate)
target_include_directories(test_estimate_step_schedule PRIVATE ${CMAKE_CURRENT_LIST_DIR})
shardwise_add_test(test_fit_verdict SOURCES test_fit_verdict.cpp LIBS Shardwise::estimate)
target_include_directories(test_fit_verdict PRIVATE ${CMAKE_CURRENT_LIST_DIR})
# Calibration builds on the estimate.
include(${CMAKE_CURRENT_LIST_DIR}/calibration.cmake)
