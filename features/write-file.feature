Feature: Skill file write tool
  As a developer
  I want the skill-level file write tool served over gRPC
  So that agents can safely write files with atomic writes, newline normalization and path guards

  # Scenarios of seed 000 for WriteFile, phrased as in the seed. Every step runs against a live
  # toolhost over gRPC (see features/support/world.ts).

  # ---- WriteFile ----

  Scenario: WriteFile creates a new file atomically
    Given a skill file ops sandbox directory
    When I execute the "skill/file-write" tool with path "new.txt" and content "created"
    Then the skill tool result should be successful
    And the skill output "created" should be boolean true
    And the skill output "size" should be greater than 0
    And the sandbox file "new.txt" should exist

  Scenario: WriteFile overwrites an existing file
    Given a skill file ops sandbox directory
    And a sandbox file "existing.txt" with content "old"
    When I execute the "skill/file-write" tool with path "existing.txt" and content "new"
    Then the skill tool result should be successful
    And the skill output "created" should be boolean false

  Scenario: WriteFile creates parent directories
    Given a skill file ops sandbox directory
    When I execute the "skill/file-write" tool with path "sub/dir/file.txt" and content "nested"
    Then the skill tool result should be successful
    And the sandbox file "sub/dir/file.txt" should exist

  Scenario: WriteFile with LF newline normalization
    Given a skill file ops sandbox directory
    When I write "skill/file-write" with path "lf.txt" content "a\r\nb\r\n" and newline_mode "lf"
    Then the skill tool result should be successful
    And the sandbox file "lf.txt" should not contain carriage return

  Scenario: WriteFile with CRLF newline normalization
    Given a skill file ops sandbox directory
    When I write "skill/file-write" with path "crlf.txt" content "a\nb\n" and newline_mode "crlf"
    Then the skill tool result should be successful
    And the sandbox file "crlf.txt" should contain carriage return

  # ---- Path Traversal Guards ----

  Scenario: Path traversal in write is rejected
    Given a skill file ops sandbox directory
    And I remember the sandbox
    When I execute the "skill/file-write" tool with path "../escape.txt" and content "evil"
    Then the skill tool result should not be successful
    And the call fails with PERMISSION_DENIED and reason "PATH_TRAVERSAL"
    And the skill tool error should mention "traversal"
    And the skill tool error should mention "../escape.txt"
    And nothing in the sandbox has changed

  # ---- Newline normalization helpers ----

  Scenario: Newline normalization with invalid mode raises error
    Given a skill file ops sandbox directory
    And I remember the sandbox
    When I write "skill/file-write" with path "bad.txt" content "test" and newline_mode "invalid"
    Then the skill tool result should not be successful
    And the call fails with INVALID_ARGUMENT and reason "INVALID_NEWLINE_MODE"
    And the skill tool error should start with "Invalid newline mode '99' for 'bad.txt'"
    And the sandbox file "bad.txt" should not exist
    And nothing in the sandbox has changed
