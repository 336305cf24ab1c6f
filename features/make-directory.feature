Feature: Skill directory make tool
  As a developer
  I want directories created inside the sandbox over gRPC
  So that agents can prepare folders without a shell

  # Every step runs against a live toolhost over gRPC (see features/support/world.ts).

  Scenario: MakeDirectory creates a directory and says so
    Given a skill file ops sandbox directory
    When I execute the "skill/directory-make" tool with:
      | path | reports |
    Then the skill tool result should be successful
    And the skill output "created" should be boolean true
    And the sandbox directory "reports" should exist

  Scenario: MakeDirectory on an existing directory is not an error
    Given a skill file ops sandbox directory
    And a sandbox subdirectory "reports"
    When I execute the "skill/directory-make" tool with:
      | path | reports |
    Then the skill tool result should be successful
    And the skill output "created" should be boolean false

  Scenario: MakeDirectory creates parents and applies the mode when asked
    Given a skill file ops sandbox directory
    When I execute the "skill/directory-make" tool with:
      | path    | a/b/c |
      | parents | true  |
      | mode    | 448   |
    Then the skill tool result should be successful
    And the sandbox directory "a/b/c" should exist
    And the sandbox file "a/b/c" should have mode 0o700

  Scenario: MakeDirectory without parents refuses a missing parent
    Given a skill file ops sandbox directory
    When I execute the "skill/directory-make" tool with:
      | path | a/b/c |
    Then the skill tool result should not be successful
    And the skill tool error reason should be "NOT_FOUND"
    And the skill tool error should mention "set parents"
    And nothing in the sandbox should have changed

  Scenario: MakeDirectory refuses an existing file
    Given a skill file ops sandbox directory
    And a sandbox file "notes.txt" with content "x"
    When I execute the "skill/directory-make" tool with:
      | path | notes.txt |
    Then the skill tool result should not be successful
    And the skill tool error reason should be "ALREADY_EXISTS"
    And nothing in the sandbox should have changed

  Scenario: MakeDirectory refuses a mode beyond permission bits
    Given a skill file ops sandbox directory
    When I execute the "skill/directory-make" tool with:
      | path | d    |
      | mode | 2541 |
    Then the skill tool result should not be successful
    And the skill tool error reason should be "INVALID_ARGUMENT"
    And nothing in the sandbox should have changed

  Scenario: MakeDirectory refuses a path outside the sandbox
    Given a skill file ops sandbox directory
    When I execute the "skill/directory-make" tool with:
      | path | ../../escape |
    Then the skill tool result should not be successful
    And the skill tool error should mention "traversal"
    And nothing in the sandbox should have changed

  Scenario: MakeDirectory refuses a read-only root
    Given a skill file ops sandbox directory
    And a read-only root holding "ro.txt" with content "R"
    When I execute the "skill/directory-make" tool with:
      | path | {readonly}/new |
    Then the skill tool result should not be successful
    And the skill tool error reason should be "READ_ONLY"
    And nothing in the sandbox should have changed
