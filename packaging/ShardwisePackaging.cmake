# Packaging: the runner's source archive for GPU nodes, and CPack's Debian packages `shardwise` and
# `shardwise-runner`. Included from the top-level CMakeLists.txt after every install() rule.
#
#   cmake --build <build> --target runner_source_archive   -> <build>/packaging/shardwise-runner-src-<v>.tar.gz
#   cpack --config <build>/CPackConfig.cmake -B <dir>       -> <dir>/shardwise_<v>_<arch>.deb
#                                                              <dir>/shardwise-runner_<v>_<arch>.deb
#
# Install components: `app` (binaries, presets, desktop integration) and `runner-sources` (the
# runner's sources under share/shardwise/runner-src, for preparing GPU nodes) make the package
# `shardwise`; `runner` (shardwise-runner built against this machine's LibTorch, Debian's
# libtorch-dev on Debian 12, and the torch backend harness) makes `shardwise-runner`, the CPU runner
# that lets "Try it here" measure on this machine. GPU nodes still build their own runner from
# runner-src against their CUDA LibTorch.

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

# --- Debian packages -----------------------------------------------------------------------------
# Debian policy 12.5 and 12.7: each package's /usr/share/doc/<package> holds its copyright file and its
# changelog, compressed with gzip -9n (no name or time in the header, as the man page is).
set(_doc_stage ${CMAKE_BINARY_DIR}/packaging/doc)
set(_doc_packages shardwise)
if(TARGET shardwise-runner)
    list(APPEND _doc_packages shardwise-runner)
endif()
set(_doc_outputs)
foreach(_package IN LISTS _doc_packages)
    set(PACKAGE ${_package})
    set(VERSION ${PROJECT_VERSION})
    configure_file(${CMAKE_CURRENT_LIST_DIR}/changelog.in ${_doc_stage}/${_package}/changelog @ONLY)
    add_custom_command(
        OUTPUT ${_doc_stage}/${_package}/changelog.gz
        COMMAND gzip -n -9 -f -k ${_doc_stage}/${_package}/changelog
        DEPENDS ${_doc_stage}/${_package}/changelog
        COMMENT "Debian changelog of ${_package}"
        VERBATIM)
    list(APPEND _doc_outputs ${_doc_stage}/${_package}/changelog.gz)
endforeach()
add_custom_target(package_docs ALL DEPENDS ${_doc_outputs})
install(FILES ${CMAKE_CURRENT_LIST_DIR}/copyright ${_doc_stage}/shardwise/changelog.gz
        DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/shardwise COMPONENT app)
if(TARGET shardwise-runner)
    install(FILES ${CMAKE_CURRENT_LIST_DIR}/copyright ${_doc_stage}/shardwise-runner/changelog.gz
            DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/shardwise-runner COMPONENT runner)
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME shardwise)
set(CPACK_PACKAGE_VENDOR "Shardwise")
# Every package and every binary's --version carry the project's version.
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
# Each package's description starts with its own synopsis line. CPackDeb puts the summary above every
# component's description unless it is CPack's default, so the summary is set to exactly that.
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${CMAKE_PROJECT_NAME} built using CMake")
set(CPACK_PACKAGE_CONTACT "Shardwise maintainers <maintainers@shardwise.example>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
# One package per component group: `shardwise` (app + runner-sources) and, where the runner is built
# here, `shardwise-runner` (runner). Anything installed under another component stays out.
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING ONE_PER_GROUP)
set(CPACK_COMPONENTS_ALL app runner-sources)
if(TARGET shardwise-runner)
    list(APPEND CPACK_COMPONENTS_ALL runner)
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE ${PROJECT_HOMEPAGE_URL})
# dpkg-shlibdeps turns the binaries' NEEDED entries into Debian 12's own runtime packages (Qt 6,
# libssh2, SQLite, the C++ runtime; for the runner LibTorch's libtorch1.13 and Gloo); the test checks
# every needed library is covered.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS OFF)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

set(CPACK_DEBIAN_SHARDWISE_PACKAGE_NAME shardwise)
set(CPACK_DEBIAN_SHARDWISE_DESCRIPTION
    "plan, measure and compare training-state sharding on your own GPUs
Shardwise recommends a sharding strategy for training a model on a cluster (ZeRO stages 0 to 3,
ZeRO-3 with CPU offload, FSDP2 with and without resharding, and with offload), shows its reasoning
with numbers, measures the candidates on local or SSH-reachable GPUs, keeps every run in SQLite and
charts predicted against measured. This package holds the desktop application (shardwise), the
command line (shardwise-cli), the model and GPU presets, and the runner's sources that node
preparation builds on GPU nodes.")
# Qt's own dialog texts in German and Japanese. The runner package is recommended, not required:
# planning, comparing and measuring on SSH nodes (which build their own runner from runner-src) work
# without it, and it brings LibTorch with its dependencies (over a gigabyte on Debian 12); apt
# installs recommended packages by default, so a default install measures on this machine too.
set(CPACK_DEBIAN_SHARDWISE_PACKAGE_RECOMMENDS "qt6-translations-l10n")
if(TARGET shardwise-runner)
    string(APPEND CPACK_DEBIAN_SHARDWISE_PACKAGE_RECOMMENDS ", shardwise-runner (= ${PROJECT_VERSION})")
endif()

set(CPACK_DEBIAN_RUNNER_PACKAGE_NAME shardwise-runner)
set(CPACK_DEBIAN_RUNNER_PACKAGE_SECTION science)
set(CPACK_DEBIAN_RUNNER_DESCRIPTION
    "Shardwise's native training runner (LibTorch, CPU and Gloo)
shardwise-runner trains a model under one of nine sharding strategies (ZeRO 0 to 3, offload, FSDP2)
as one process per rank and reports its step times and memory as JSON Lines, for shardwise and
shardwise-cli to measure with on this machine. Built against Debian's LibTorch, it runs on the CPU;
GPU nodes build a CUDA runner from the sources the shardwise package holds. shardwise-torch-runner,
the PyTorch backend harness, comes with it and needs python3-torch.")
# Depends comes from dpkg-shlibdeps (LibTorch's runtime package among them); the torch backend
# harness is Python and needs PyTorch's Python package.
set(CPACK_DEBIAN_RUNNER_PACKAGE_RECOMMENDS "python3-torch")
include(CPack)
cpack_add_component_group(shardwise DISPLAY_NAME "Shardwise")
cpack_add_component_group(runner DISPLAY_NAME "Shardwise runner")
cpack_add_component(app GROUP shardwise)
cpack_add_component(runner-sources GROUP shardwise)
if(TARGET shardwise-runner)
    cpack_add_component(runner GROUP runner)
endif()
