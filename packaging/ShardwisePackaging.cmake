# Packaging: the runner's source archive for GPU nodes, and CPack's Debian package `shardwise`.
# Included from the top-level CMakeLists.txt after every install() rule of the app and the CLI.
#
#   cmake --build <build> --target runner_source_archive   -> <build>/packaging/shardwise-runner-src-<v>.tar.gz
#   cpack --config <build>/CPackConfig.cmake -B <dir>       -> <dir>/shardwise_<v>_<arch>.deb
#
# Install components: `app` (binaries, presets, desktop integration) and `runner-sources` (the
# runner's sources under share/shardwise/runner-src, for preparing GPU nodes). shardwise-runner
# itself is not packaged: it links LibTorch, which a GPU node supplies in its own CUDA build.

if(NOT TARGET shardwise_dispatch OR NOT TARGET shardwise-cli)
    message(STATUS "packaging: the CLI or core/dispatch is not built; no runner archive and no Debian package")
    return()
endif()

# --- Runner source archive ---------------------------------------------------------------------
# The bytes come from dispatch::makeRunnerBundle, the function node preparation uploads with, so
# the archive cannot drift from what a node is sent.
add_executable(shardwise-runner-archive ${CMAKE_CURRENT_LIST_DIR}/runner_source_archive.cpp)
target_link_libraries(shardwise-runner-archive PRIVATE shardwise_dispatch)
set_target_properties(shardwise-runner-archive PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/packaging)
shardwise_warnings(shardwise-runner-archive)

set(SHARDWISE_RUNNER_ARCHIVE_NAME shardwise-runner-src-${PROJECT_VERSION})
set(SHARDWISE_RUNNER_ARCHIVE ${CMAKE_BINARY_DIR}/packaging/${SHARDWISE_RUNNER_ARCHIVE_NAME}.tar.gz)
# The archive unpacked, installed from here so the package holds exactly the archive's files and modes.
set(SHARDWISE_RUNNER_SOURCE_STAGE ${CMAKE_BINARY_DIR}/packaging/runner-src)
set(_tar ${CMAKE_BINARY_DIR}/packaging/${SHARDWISE_RUNNER_ARCHIVE_NAME}.tar)
add_custom_command(
    OUTPUT ${SHARDWISE_RUNNER_ARCHIVE} ${CMAKE_BINARY_DIR}/packaging/runner-src.stamp
    COMMAND shardwise-runner-archive ${PROJECT_SOURCE_DIR} ${_tar} ${CMAKE_BINARY_DIR}/packaging/runner-src.d
            ${SHARDWISE_RUNNER_ARCHIVE}
    COMMAND ${CMAKE_COMMAND} -E rm -rf ${SHARDWISE_RUNNER_SOURCE_STAGE}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${SHARDWISE_RUNNER_SOURCE_STAGE}
    COMMAND ${CMAKE_COMMAND} -E chdir ${SHARDWISE_RUNNER_SOURCE_STAGE} ${CMAKE_COMMAND} -E tar xf ${_tar}
    # -n: no name or time in the gzip header, so equal sources give an equal .tar.gz.
    COMMAND gzip -n -9 -f ${_tar}
    # The unpacked files keep the archive's fixed time, so the stamp is what dates this step.
    COMMAND ${CMAKE_COMMAND} -E touch ${CMAKE_BINARY_DIR}/packaging/runner-src.stamp
    DEPENDS shardwise-runner-archive
    DEPFILE ${CMAKE_BINARY_DIR}/packaging/runner-src.d
    COMMENT "Runner source archive ${SHARDWISE_RUNNER_ARCHIVE_NAME}.tar.gz"
    VERBATIM)
add_custom_target(runner_source_archive ALL DEPENDS ${SHARDWISE_RUNNER_ARCHIVE})
install(DIRECTORY ${SHARDWISE_RUNNER_SOURCE_STAGE}/ DESTINATION ${CMAKE_INSTALL_DATADIR}/shardwise/runner-src
    COMPONENT runner-sources USE_SOURCE_PERMISSIONS)

# --- Debian package ------------------------------------------------------------------------------
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME shardwise)
set(CPACK_PACKAGE_VENDOR "Shardwise")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "plan, measure and compare training-state sharding on your own GPUs")
set(CPACK_PACKAGE_CONTACT "Shardwise maintainers <maintainers@shardwise.example>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
# One package holding both components; shardwise-runner (no component of ours) stays out.
set(CPACK_COMPONENTS_ALL app runner-sources)
# A monolithic package of exactly these components: the runner binary (component "runner", linked
# against LibTorch) and anything else installed stays out.
set(CPACK_INSTALL_CMAKE_PROJECTS "${CMAKE_BINARY_DIR};${PROJECT_NAME};app;/;${CMAKE_BINARY_DIR};${PROJECT_NAME};runner-sources;/")
set(CPACK_DEB_COMPONENT_INSTALL OFF)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE ${PROJECT_HOMEPAGE_URL})
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "Shardwise recommends a sharding strategy for training a model on a cluster (ZeRO stages 0 to 3,
ZeRO-3 with CPU offload, FSDP2 with and without resharding, and with offload), shows its reasoning
with numbers, measures the candidates on local or SSH-reachable GPUs, keeps every run in SQLite and
charts predicted against measured. This package holds the desktop application (shardwise), the
command line (shardwise-cli), the model and GPU presets, and the runner's sources that node
preparation builds on GPU nodes.")
# dpkg-shlibdeps turns the binaries' NEEDED entries into Debian 12's own runtime packages (Qt 6,
# libssh2, SQLite, the C++ runtime); the test checks every needed library is covered.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS OFF)
# Qt's own dialog texts in German and Japanese; building shardwise-runner from runner-src on a node
# takes a compiler, CMake and LibTorch there, not here.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "qt6-translations-l10n")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
