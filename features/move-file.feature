Feature: Skill file move tool
  As a developer
  I want files, links and directories moved inside the sandbox over gRPC
  So that agents can rename and reorganise files without a shell

  # Every step runs against a live toolhost over gRPC (see features/support/world.ts). After
  # every refusal the sandbox is compared with what it was before the call.

  Scenario: MoveFile renames a file and returns its sha256
    Given a skill file ops sandbox directory
    And a sandbox file "draft.txt" with content "hello"
    When I execute the "skill/file-move" tool with:
      | from | draft.txt |
      | to   | final.txt |
    Then the skill tool result should be successful
    And the skill output "sha256" should be "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
    And the skill output "overwritten" should be boolean false
    And the sandbox file "draft.txt" should not exist
    And the sandbox file "final.txt" should have content "hello"

  Scenario: MoveFile moves a symlink as a link
    Given a skill file ops sandbox directory
    And a sandbox file "target.txt" with content "t"
    And a sandbox symlink "link" pointing to "target.txt"
    When I execute the "skill/file-move" tool with:
      | from | link     |
      | to   | link-two |
    Then the skill tool result should be successful
    And the sandbox entry "link-two" should be a symlink to "target.txt"
    And the sandbox file "target.txt" should have content "t"

  Scenario: MoveFile moves a directory with everything in it, creating parents when asked
    Given a skill file ops sandbox directory
    And a sandbox file "src/a/one.txt" with content "1"
    When I execute the "skill/file-move" tool with:
      | from           | src              |
      | to             | archive/2024/src |
      | create_parents | true             |
    Then the skill tool result should be successful
    And the sandbox file "archive/2024/src/a/one.txt" should have content "1"
    And the sandbox file "src" should not exist

  Scenario: MoveFile refuses an existing target without overwrite
    Given a skill file ops sandbox directory
    And a sandbox file "a.txt" with content "A"
    And a sandbox file "b.txt" with content "B"
    When I execute the "skill/file-move" tool with:
      | from | a.txt |
      | to   | b.txt |
    Then the skill tool result should not be successful
    And the skill tool error reason should be "ALREADY_EXISTS"
    And the skill tool error should mention "set overwrite"
    And nothing in the sandbox should have changed

  Scenario: MoveFile replaces the target with overwrite
    Given a skill file ops sandbox directory
    And a sandbox file "a.txt" with content "A"
    And a sandbox file "b.txt" with content "B"
    When I execute the "skill/file-move" tool with:
      | from      | a.txt |
      | to        | b.txt |
      | overwrite | true  |
    Then the skill tool result should be successful
    And the skill output "overwritten" should be boolean true
    And the sandbox file "b.txt" should have content "A"

  Scenario: MoveFile with a stale if_sha256 changes nothing
    Given a skill file ops sandbox directory
    And a sandbox file "a.txt" with content "A"
    When I execute the "skill/file-move" tool with:
      | from      | a.txt                                                            |
      | to        | b.txt                                                            |
      | if_sha256 | 0000000000000000000000000000000000000000000000000000000000000000 |
    Then the skill tool result should not be successful
    And the skill tool error reason should be "PRECONDITION_FAILED"
    And nothing in the sandbox should have changed

  Scenario: MoveFile without create_parents refuses a missing target folder
    Given a skill file ops sandbox directory
    And a sandbox file "a.txt" with content "A"
    When I execute the "skill/file-move" tool with:
      | from | a.txt         |
      | to   | missing/a.txt |
    Then the skill tool result should not be successful
    And the skill tool error reason should be "NOT_FOUND"
    And the skill tool error should mention "create_parents"
    And nothing in the sandbox should have changed

  Scenario: MoveFile refuses a directory into itself
    Given a skill file ops sandbox directory
    And a sandbox file "d/inner/x.txt" with content "x"
    When I execute the "skill/file-move" tool with:
      | from | d         |
      | to   | d/inner/d |
    Then the skill tool result should not be successful
    And the skill tool error should mention "inside the source"
    And nothing in the sandbox should have changed

  Scenario: MoveFile refuses a missing source
    Given a skill file ops sandbox directory
    When I execute the "skill/file-move" tool with:
      | from | ghost.txt |
      | to   | b.txt     |
    Then the skill tool result should not be successful
    And the skill tool error should mention "not found"
    And nothing in the sandbox should have changed

  Scenario: MoveFile refuses to move out of the sandbox
    Given a skill file ops sandbox directory
    And a sandbox file "a.txt" with content "A"
    When I execute the "skill/file-move" tool with:
      | from | a.txt         |
      | to   | ../../tmp/a.txt |
    Then the skill tool result should not be successful
    And the skill tool error should mention "traversal"
    And nothing in the sandbox should have changed

  Scenario: MoveFile refuses a path through a symlink leading outside
    Given a skill file ops sandbox directory
    And a directory outside the sandbox holding "secret.txt"
    And a sandbox symlink "escape" pointing to "{outside}"
    When I execute the "skill/file-move" tool with:
      | from | escape/secret.txt |
      | to   | stolen.txt        |
    Then the skill tool result should not be successful
    And the skill tool error should mention "traversal"
    And nothing in the sandbox should have changed
    And nothing outside the sandbox should have changed

  Scenario: MoveFile refuses a read-only root
    Given a skill file ops sandbox directory
    And a read-only root holding "ro.txt" with content "R"
    When I execute the "skill/file-move" tool with:
      | from | {readonly}/ro.txt |
      | to   | ro.txt            |
    Then the skill tool result should not be successful
    And the skill tool error reason should be "READ_ONLY"
    And nothing in the sandbox should have changed
