Feature: Skill file delete tool
  As a developer
  I want the skill-level file delete tool served over gRPC
  So that agents can remove files, and only files, inside the sandbox

  # Scenarios of seed 000 for DeleteFile, phrased as in the seed. Every step runs against a live
  # toolhost over gRPC (see features/support/world.ts).

  # ---- DeleteFile ----

  Scenario: DeleteFile removes an existing file
    Given a skill file ops sandbox directory
    And a sandbox file "doomed.txt" with content "goodbye"
    When I execute the "skill/file-delete" tool with path "doomed.txt"
    Then the skill tool result should be successful
    And the skill output "existed" should be boolean true
    And the sandbox file "doomed.txt" should not exist

  Scenario: DeleteFile on nonexistent file reports not existed
    Given a skill file ops sandbox directory
    When I execute the "skill/file-delete" tool with path "ghost.txt"
    Then the skill tool result should be successful
    And the skill output "existed" should be boolean false

  Scenario: DeleteFile rejects directory targets
    Given a skill file ops sandbox directory
    And a sandbox subdirectory "mydir"
    And I remember the sandbox
    When I execute the "skill/file-delete" tool with path "mydir"
    Then the skill tool result should not be successful
    And the call fails with FAILED_PRECONDITION and reason "NOT_A_REGULAR_FILE"
    And the skill tool error should start with "Cannot delete non-file path 'mydir': it is a directory;"
    And nothing in the sandbox has changed

  # ---- Path Traversal Guards ----

  Scenario: Path traversal in delete is rejected
    Given a skill file ops sandbox directory
    And I remember the sandbox
    When I execute the "skill/file-delete" tool with path "../../etc/important"
    Then the skill tool result should not be successful
    And the call fails with PERMISSION_DENIED and reason "PATH_TRAVERSAL"
    And the skill tool error should mention "traversal"
    And nothing in the sandbox has changed
