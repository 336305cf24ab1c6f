Feature: Skill directory remove tool
  As a developer
  I want directories removed inside the sandbox over gRPC
  So that agents can clean up without a shell, and never beyond the sandbox

  # Every step runs against a live toolhost over gRPC (see features/support/world.ts). After
  # every refusal the sandbox is compared with what it was before the call.

  Scenario: RemoveDirectory removes an empty directory
    Given a skill file ops sandbox directory
    And a sandbox subdirectory "empty"
    When I execute the "skill/directory-remove" tool with:
      | path | empty |
    Then the skill tool result should be successful
    And the skill output "existed" should be boolean true
    And the sandbox file "empty" should not exist

  Scenario: RemoveDirectory on a missing directory reports not existed
    Given a skill file ops sandbox directory
    When I execute the "skill/directory-remove" tool with:
      | path | ghost |
    Then the skill tool result should be successful
    And the skill output "existed" should be boolean false

  Scenario: RemoveDirectory refuses a non-empty directory without recursive
    Given a skill file ops sandbox directory
    And a sandbox file "full/a.txt" with content "a"
    When I execute the "skill/directory-remove" tool with:
      | path | full |
    Then the skill tool result should not be successful
    And the skill tool error reason should be "DIRECTORY_NOT_EMPTY"
    And nothing in the sandbox should have changed

  Scenario: RemoveDirectory dry_run lists what would go and removes nothing
    Given a skill file ops sandbox directory
    And a sandbox file "build/out/a.o" with content "a"
    And a sandbox file "build/log.txt" with content "l"
    When I execute the "skill/directory-remove" tool with:
      | path      | build |
      | recursive | true  |
      | dry_run   | true  |
    Then the skill tool result should be successful
    And the skill output "paths" should list "build/log.txt, build/out/a.o, build/out, build"
    And nothing in the sandbox should have changed

  Scenario: RemoveDirectory recursive removes a tree, and a symlink in it as a link
    Given a skill file ops sandbox directory
    And a directory outside the sandbox holding "keep.txt"
    And a sandbox file "build/out/a.o" with content "a"
    And a sandbox symlink "build/outside" pointing to "{outside}"
    When I execute the "skill/directory-remove" tool with:
      | path      | build |
      | recursive | true  |
    Then the skill tool result should be successful
    And the skill output "removed_entries" should equal 4
    And the sandbox file "build" should not exist
    And nothing outside the sandbox should have changed

  Scenario: RemoveDirectory over max_entries removes nothing
    Given a skill file ops sandbox directory
    And a sandbox file "build/a" with content "a"
    And a sandbox file "build/b" with content "b"
    And a sandbox file "build/c" with content "c"
    When I execute the "skill/directory-remove" tool with:
      | path        | build |
      | recursive   | true  |
      | max_entries | 2     |
    Then the skill tool result should not be successful
    And the skill tool error reason should be "TOO_LARGE"
    And nothing in the sandbox should have changed

  Scenario: RemoveDirectory refuses a file
    Given a skill file ops sandbox directory
    And a sandbox file "a.txt" with content "a"
    When I execute the "skill/directory-remove" tool with:
      | path | a.txt |
    Then the skill tool result should not be successful
    And the skill tool error reason should be "NOT_A_DIRECTORY"
    And nothing in the sandbox should have changed

  Scenario: RemoveDirectory refuses a symlink to a directory
    Given a skill file ops sandbox directory
    And a sandbox file "real/a.txt" with content "a"
    And a sandbox symlink "link" pointing to "real"
    When I execute the "skill/directory-remove" tool with:
      | path      | link |
      | recursive | true |
    Then the skill tool result should not be successful
    And the skill tool error should mention "DeleteFile removes a link"
    And nothing in the sandbox should have changed

  Scenario: RemoveDirectory refuses a root
    Given a skill file ops sandbox directory
    And a sandbox file "a.txt" with content "a"
    When I execute the "skill/directory-remove" tool with:
      | path      | .    |
      | recursive | true |
    Then the skill tool result should not be successful
    And the skill tool error should mention "root directory itself"
    And nothing in the sandbox should have changed

  Scenario: RemoveDirectory refuses a path outside the sandbox
    Given a skill file ops sandbox directory
    When I execute the "skill/directory-remove" tool with:
      | path      | ../..  |
      | recursive | true   |
    Then the skill tool result should not be successful
    And the skill tool error should mention "traversal"
    And nothing in the sandbox should have changed

  Scenario: RemoveDirectory refuses a read-only root
    Given a skill file ops sandbox directory
    And a read-only root holding "sub/ro.txt" with content "R"
    When I execute the "skill/directory-remove" tool with:
      | path      | {readonly}/sub |
      | recursive | true           |
    Then the skill tool result should not be successful
    And the skill tool error reason should be "READ_ONLY"
    And nothing in the sandbox should have changed
