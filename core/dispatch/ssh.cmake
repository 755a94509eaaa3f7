# SSH nodes (libssh2), node discovery and preparation, remote multi-rank launch.
if(NOT TARGET PkgConfig::LIBSSH2)
    message(FATAL_ERROR "libssh2 was not found by pkg-config (Debian: libssh2-1-dev); core/dispatch needs it for SSH nodes")
endif()
# libcrypto (a dependency of libssh2 on Debian) for SHA-256 of host keys and runner bundles.
find_package(OpenSSL REQUIRED COMPONENTS Crypto)
target_sources(shardwise_dispatch PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/src/shell_quote.cpp
    ${CMAKE_CURRENT_LIST_DIR}/src/ssh_host_key.cpp
    ${CMAKE_CURRENT_LIST_DIR}/src/known_hosts.cpp
    ${CMAKE_CURRENT_LIST_DIR}/src/ssh_config.cpp
    ${CMAKE_CURRENT_LIST_DIR}/src/ssh_config_openssh.cpp
    ${CMAKE_CURRENT_LIST_DIR}/src/ssh_route.cpp
    ${CMAKE_CURRENT_LIST_DIR}/src/ssh_auth.cpp
    ${CMAKE_CURRENT_LIST_DIR}/src/ssh_jump.cpp
    ${CMAKE_CURRENT_LIST_DIR}/src/ssh_kex_diagnosis.cpp
    ${CMAKE_CURRENT_LIST_DIR}/src/ssh_session.cpp
    ${CMAKE_CURRENT_LIST_DIR}/src/ssh_channel.cpp
    ${CMAKE_CURRENT_LIST_DIR}/src/node_discovery.cpp
    ${CMAKE_CURRENT_LIST_DIR}/src/node_preparation.cpp
    ${CMAKE_CURRENT_LIST_DIR}/src/remote_bundle.cpp
    ${CMAKE_CURRENT_LIST_DIR}/src/remote_launch.cpp)
target_link_libraries(shardwise_dispatch PUBLIC PkgConfig::LIBSSH2 PRIVATE OpenSSL::Crypto)
