Feature: Skill file read tool
  As a developer
  I want the skill-level file read tool served over gRPC
  So that agents can safely read files with binary detection, size limits and path guards

  # Scenarios of seed 000 for the read side, phrased as in the seed. Every step runs against a
  # live toolhost over gRPC (see features/support/world.ts).

  # ---- ReadFile ----

  Scenario: ReadFile reads text file content
    Given a skill file ops sandbox directory
    And a sandbox file "greeting.txt" with content "Hello, World!"
    When I execute the "skill/file-read" tool with path "greeting.txt"
    Then the skill tool result should be successful
    And the skill output "content" should be "Hello, World!"
    And the skill output "encoding" should be "utf-8"
    And the skill output "size" should be greater than 0

  Scenario: ReadFile with offset and limit
    Given a skill file ops sandbox directory
    And a sandbox file "lines.txt" with lines "line1,line2,line3,line4"
    When I execute the "skill/file-read" tool with path "lines.txt" offset 1 limit 2
    Then the skill tool result should be successful
    And the skill output "content" should contain "line2"
    And the skill output "content" should contain "line3"
    And the skill output "content" should not contain "line1"

  Scenario: ReadFile detects binary files and returns error
    Given a skill file ops sandbox directory
    And a binary file "image.png" in the sandbox
    When I execute the "skill/file-read" tool with path "image.png"
    Then the skill tool result should not be successful
    And the call fails with FAILED_PRECONDITION and reason "BINARY_FILE"
    And the skill tool error should mention "Binary file detected"

  Scenario: ReadFile rejects missing file
    Given a skill file ops sandbox directory
    When I execute the "skill/file-read" tool with path "ghost.txt"
    Then the skill tool result should not be successful
    And the call fails with NOT_FOUND and reason "NOT_FOUND"
    And the skill tool error should mention "not found"

  Scenario: ReadFile enforces content size limit
    Given a skill file ops sandbox directory
    And an oversized file "huge.txt" in the sandbox
    When I execute the "skill/file-read" tool with path "huge.txt"
    Then the skill tool result should not be successful
    And the call fails with RESOURCE_EXHAUSTED and reason "TOO_LARGE"
    And the skill tool error should mention "too large"

  Scenario: ReadFile normalizes UTF-8 encoding
    Given a skill file ops sandbox directory
    And a sandbox file "utf8.txt" with content "caf\u00e9"
    When I execute the "skill/file-read" tool with path "utf8.txt"
    Then the skill tool result should be successful
    And the skill output "content" should contain "caf"

  Scenario: ReadFile rejects non-file path
    Given a skill file ops sandbox directory
    And a sandbox subdirectory "mydir"
    When I execute the "skill/file-read" tool with path "mydir"
    Then the skill tool result should not be successful
    And the call fails with FAILED_PRECONDITION and reason "NOT_A_REGULAR_FILE"
    And the skill tool error should mention "Not a regular file"

  # ---- Path Traversal Guards ----

  Scenario: Path traversal with dotdot in read is rejected
    Given a skill file ops sandbox directory
    When I execute the "skill/file-read" tool with path "../../etc/passwd"
    Then the skill tool result should not be successful
    And the call fails with PERMISSION_DENIED and reason "PATH_TRAVERSAL"
    And the skill tool error should mention "traversal"
    And the skill tool error should mention "../../etc/passwd"

  # ---- Empty path validation ----

  Scenario: Empty path is rejected in read
    Given a skill file ops sandbox directory
    When I execute the "skill/file-read" tool with an empty path
    Then the skill tool result should not be successful
    And the call fails with INVALID_ARGUMENT and reason "EMPTY_PATH"
    And the skill tool error should mention "must not be empty"

  # ---- Binary detection heuristic ----

  Scenario: ReadFile detects ELF binary
    Given a skill file ops sandbox directory
    And an ELF binary file "program" in the sandbox
    When I execute the "skill/file-read" tool with path "program"
    Then the skill tool result should not be successful
    And the skill tool error should mention "Binary file detected"

  Scenario: ReadFile detects high control character content
    Given a skill file ops sandbox directory
    And a control-heavy file "binary.dat" in the sandbox
    When I execute the "skill/file-read" tool with path "binary.dat"
    Then the skill tool result should not be successful
    And the skill tool error should mention "Binary file detected"
