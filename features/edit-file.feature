Feature: Skill file edit tool
  As a developer
  I want the skill-level file edit tool served over gRPC
  So that agents can change files in place, all or nothing, keeping their permissions

  # Scenarios of seed 000 for EditFile, phrased as in the seed. Every step runs against a live
  # toolhost over gRPC (see features/support/world.ts).

  # ---- EditFile ----

  Scenario: EditFile with single replacement
    Given a skill file ops sandbox directory
    And a sandbox file "edit.txt" with content "foo bar foo"
    When I execute the "skill/file-edit" tool replacing "foo" with "baz" in "edit.txt"
    Then the skill tool result should be successful
    And the skill output "replacements" should equal 1

  Scenario: EditFile with replace_all
    Given a skill file ops sandbox directory
    And a sandbox file "edit.txt" with content "foo bar foo"
    When I execute the "skill/file-edit" tool replacing all "foo" with "baz" in "edit.txt"
    Then the skill tool result should be successful
    And the skill output "replacements" should equal 2

  Scenario: EditFile preserves file permissions
    Given a skill file ops sandbox directory
    And a sandbox file "perm.txt" with content "original" and mode 0o755
    When I execute the "skill/file-edit" tool replacing "original" with "modified" in "perm.txt"
    Then the skill tool result should be successful
    And the sandbox file "perm.txt" should have mode 0o755

  Scenario: EditFile with text not found raises error
    Given a skill file ops sandbox directory
    And a sandbox file "edit.txt" with content "foo bar"
    And I remember the sandbox
    When I execute the "skill/file-edit" tool replacing "notfound" with "x" in "edit.txt"
    Then the skill tool result should not be successful
    And the call fails with FAILED_PRECONDITION and reason "EDIT_TEXT_NOT_FOUND"
    And the skill tool error should mention "not found"
    And nothing in the sandbox has changed

  Scenario: EditFile rejects missing file
    Given a skill file ops sandbox directory
    When I execute the "skill/file-edit" tool replacing "a" with "b" in "ghost.txt"
    Then the skill tool result should not be successful
    And the skill tool error should mention "not found"

  # ---- Path Traversal Guards ----

  Scenario: Path traversal in edit is rejected
    Given a skill file ops sandbox directory
    And a sandbox file "safe.txt" with content "safe"
    When I execute the "skill/file-edit" tool replacing "safe" with "x" in "../evil.txt"
    Then the skill tool result should not be successful
    And the skill tool error should mention "traversal"
