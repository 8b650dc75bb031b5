# A thin wrapper over CMake (with Ninja when it is installed).
#
#   make                        configure (Release) into build/ and build
#   make test                   build, then run every test with ctest
#   make bench [FULL=1] [BENCH_ARGS="--only fib"]   build, then run bench/run (FULL=1 adds --all)
#   make install [PREFIX=/usr/local]   build the library only, and install it
#   make install-tsan PREFIX=DIR  build the ThreadSanitizer variant (build-tsan/, no benchmarks) and
#                               install it to DIR, for checking a program with -fsanitize=thread
#   make tsan | make asan       ThreadSanitizer / AddressSanitizer+UBSan builds in build-tsan/,
#                               build-asan/, and their tests (TSAN_BUILD=, ASAN_BUILD= move them)
#   make test-sanitizers        both of the above, one after the other (CI runs it after make test)
#   make stress [DURATION=600] [STRESS_ARGS="--seed S --round R"]
#                               build, then run the randomized stress harness (tests/stress.c)
#   make clean                  remove the build directories
#
# CMAKE_ARGS="-DMERINO_BUILD_BENCH=OFF" passes options to the first configure of a build directory.

BUILD      ?= build
PREFIX     ?= /usr/local
CMAKE      ?= cmake
CTEST      ?= ctest
CMAKE_ARGS ?=
BENCH_ARGS ?=
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)

# Commands a build needs, and those its tests need too; scripts/install-deps.sh installs what is
# missing of them (a build works without ninja, so only the tests ask for it; gfortran and gm stand
# for the OpenMP suite's Fortran programs and Debian programs, tests/omp).
BUILD_CMDS := cmake c++ cc
TEST_CMDS  := $(BUILD_CMDS) ninja pkg-config spin python3 clang mpirun gfortran gm

.PHONY: all build configure build-deps test-deps test bench stress install install-tsan clean \
        tsan asan test-sanitizers

all: build

# $(call need,COMMANDS): run scripts/install-deps.sh when one of COMMANDS is not on the PATH.
define need
	@missing=""; for c in $(1); do command -v $$c >/dev/null 2>&1 || missing="$$missing $$c"; done; \
	if [ -n "$$missing" ]; then \
	    echo "make: not found:$$missing; running scripts/install-deps.sh"; \
	    ./scripts/install-deps.sh; \
	fi
endef

build-deps:
	$(call need,$(BUILD_CMDS))

test-deps:
	$(call need,$(TEST_CMDS))

# $(call configure,DIR,EXTRA-CMAKE-ARGS): configure DIR once (with Ninja if it is installed);
# later builds re-run CMake by themselves when a CMakeLists.txt changes.
define configure
	@if [ ! -f $(1)/CMakeCache.txt ]; then \
	    gen=""; if command -v ninja >/dev/null 2>&1; then gen="-G Ninja"; fi; \
	    echo "$(CMAKE) -S . -B $(1) $$gen $(2) $(CMAKE_ARGS)"; \
	    $(CMAKE) -S . -B $(1) $$gen $(2) $(CMAKE_ARGS); \
	fi
endef

configure: build-deps
	$(call configure,$(BUILD),-DCMAKE_BUILD_TYPE=Release)

build: configure
	$(CMAKE) --build $(BUILD) --parallel $(JOBS)

test: test-deps
	$(call configure,$(BUILD),-DCMAKE_BUILD_TYPE=Release)
	$(CMAKE) --build $(BUILD) --parallel $(JOBS)
	$(CTEST) --test-dir $(BUILD) --output-on-failure -j2

BENCH_RUN := bench/run $(if $(filter-out build,$(BUILD)),--build-dir $(BUILD)) \
             $(if $(filter 1 yes true,$(FULL)),--all) $(BENCH_ARGS)

bench: build
	@test -x bench/run || { echo "make bench: bench/run does not exist"; exit 1; }
	$(strip $(BENCH_RUN))

# The stress harness for a long run (soak): DURATION seconds of random rounds at 1..16 workers,
# each round's seed and parameters logged to STRESS_LOG before it runs. While the file
# STRESS_PAUSE exists (the machine is kept quiet for timing runs) it pauses between rounds.
DURATION     ?= 600
STRESS_LOG   ?= $(BUILD)/stress.log
STRESS_PAUSE ?= /tmp/merino-quiet
STRESS_ARGS  ?=

stress: configure
	$(CMAKE) --build $(BUILD) --parallel $(JOBS) --target merino_stress
	$(BUILD)/tests/merino_stress --duration $(DURATION) --log $(STRESS_LOG) \
	    $(if $(STRESS_PAUSE),--pause-while $(STRESS_PAUSE)) $(STRESS_ARGS)

# Builds only what it installs (the libraries, merino_mpi's too when an MPI was found: the target
# merino_libraries), not the tests and benchmarks.
install: configure
	$(CMAKE) --build $(BUILD) --parallel $(JOBS) --target merino_libraries
	$(CMAKE) --install $(BUILD) --prefix $(PREFIX)

# Sanitizer builds: optimized with debug info, no benchmarks. Every test runs in them, the stress
# harness's short run included (with smaller sizes: check_scale() in tests/check.h). No
# suppression file: the tests must be clean as they are.
SAN_ARGS   := -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMERINO_BUILD_BENCH=OFF
TSAN_BUILD ?= build-tsan
ASAN_BUILD ?= build-asan

tsan: test-deps
	$(call configure,$(TSAN_BUILD),$(SAN_ARGS) -DMERINO_SANITIZE=thread)
	$(CMAKE) --build $(TSAN_BUILD) --parallel $(JOBS)
	$(CTEST) --test-dir $(TSAN_BUILD) --output-on-failure -j2

# The ThreadSanitizer build of the library, installed to its own prefix (docs/api.md,
# "ThreadSanitizer on your program"). No default PREFIX: it must not land over a normal install.
install-tsan: build-deps
	@test "$(origin PREFIX)" != file || { echo "make install-tsan: give the prefix, e.g. make install-tsan PREFIX=$$HOME/merino-tsan"; exit 1; }
	$(call configure,$(TSAN_BUILD),$(SAN_ARGS) -DMERINO_SANITIZE=thread)
	$(CMAKE) --build $(TSAN_BUILD) --parallel $(JOBS)
	$(CMAKE) --install $(TSAN_BUILD) --prefix $(PREFIX)

asan: test-deps
	$(call configure,$(ASAN_BUILD),$(SAN_ARGS) -DMERINO_SANITIZE=address)
	$(CMAKE) --build $(ASAN_BUILD) --parallel $(JOBS)
	$(CTEST) --test-dir $(ASAN_BUILD) --output-on-failure -j2

# CI's second step (.ci/run): the whole test suite under ThreadSanitizer, then under
# AddressSanitizer + UndefinedBehaviorSanitizer. One at a time: each already uses both cores.
test-sanitizers:
	$(MAKE) --no-print-directory tsan
	$(MAKE) --no-print-directory asan

clean:
	rm -rf $(BUILD) $(TSAN_BUILD) $(ASAN_BUILD)
