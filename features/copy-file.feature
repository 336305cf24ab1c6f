Feature: Skill file copy tool
  As a developer
  I want files, links and directory trees copied inside the sandbox over gRPC
  So that agents can duplicate files atomically without a shell

  # Every step runs against a live toolhost over gRPC (see features/support/world.ts). After
  # every refusal the sandbox is compared with what it was before the call.

  Scenario: CopyFile copies a file and returns its sha256
    Given a skill file ops sandbox directory
    And a sandbox file "a.txt" with content "hello"
    When I execute the "skill/file-copy" tool with:
      | from | a.txt |
      | to   | b.txt |
    Then the skill tool result should be successful
    And the skill output "sha256" should be "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
    And the skill output "bytes_copied" should equal 5
    And the sandbox file "a.txt" should have content "hello"
    And the sandbox file "b.txt" should have content "hello"

  Scenario: CopyFile keeps the source's mode when asked
    Given a skill file ops sandbox directory
    And a sandbox file "run.sh" with content "echo hi" and mode 0o750
    When I execute the "skill/file-copy" tool with:
      | from      | run.sh  |
      | to        | run2.sh |
      | keep_mode | true    |
    Then the skill tool result should be successful
    And the sandbox file "run2.sh" should have mode 0o750

  Scenario: CopyFile copies a symlink as a link
    Given a skill file ops sandbox directory
    And a sandbox symlink "link" pointing to "elsewhere.txt"
    When I execute the "skill/file-copy" tool with:
      | from | link  |
      | to   | link2 |
    Then the skill tool result should be successful
    And the sandbox entry "link2" should be a symlink to "elsewhere.txt"

  Scenario: CopyFile copies a directory tree with recursive, creating parents when asked
    Given a skill file ops sandbox directory
    And a sandbox file "src/a/one.txt" with content "1"
    And a sandbox file "src/two.txt" with content "2"
    When I execute the "skill/file-copy" tool with:
      | from           | src        |
      | to             | backup/src |
      | recursive      | true       |
      | create_parents | true       |
    Then the skill tool result should be successful
    And the skill output "entries_copied" should equal 4
    And the sandbox file "backup/src/a/one.txt" should have content "1"
    And the sandbox file "backup/src/two.txt" should have content "2"
    And the sandbox file "src/two.txt" should have content "2"

  Scenario: CopyFile refuses a directory without recursive
    Given a skill file ops sandbox directory
    And a sandbox file "src/one.txt" with content "1"
    When I execute the "skill/file-copy" tool with:
      | from | src  |
      | to   | copy |
    Then the skill tool result should not be successful
    And the skill tool error should mention "set recursive"
    And nothing in the sandbox should have changed

  Scenario: CopyFile refuses an existing target without overwrite
    Given a skill file ops sandbox directory
    And a sandbox file "a.txt" with content "A"
    And a sandbox file "b.txt" with content "B"
    When I execute the "skill/file-copy" tool with:
      | from | a.txt |
      | to   | b.txt |
    Then the skill tool result should not be successful
    And the skill tool error reason should be "ALREADY_EXISTS"
    And nothing in the sandbox should have changed

  Scenario: CopyFile replaces a file with overwrite
    Given a skill file ops sandbox directory
    And a sandbox file "a.txt" with content "A"
    And a sandbox file "b.txt" with content "B"
    When I execute the "skill/file-copy" tool with:
      | from      | a.txt |
      | to        | b.txt |
      | overwrite | true  |
    Then the skill tool result should be successful
    And the skill output "overwritten" should be boolean true
    And the sandbox file "b.txt" should have content "A"

  Scenario: CopyFile never merges a directory into an existing one
    Given a skill file ops sandbox directory
    And a sandbox file "src/one.txt" with content "1"
    And a sandbox subdirectory "dest"
    When I execute the "skill/file-copy" tool with:
      | from      | src  |
      | to        | dest |
      | recursive | true |
      | overwrite | true |
    Then the skill tool result should not be successful
    And the skill tool error reason should be "ALREADY_EXISTS"
    And the skill tool error should mention "never merges"
    And nothing in the sandbox should have changed

  Scenario: CopyFile refuses a directory into itself
    Given a skill file ops sandbox directory
    And a sandbox file "src/one.txt" with content "1"
    When I execute the "skill/file-copy" tool with:
      | from      | src      |
      | to        | src/copy |
      | recursive | true     |
    Then the skill tool result should not be successful
    And the skill tool error should mention "inside the source"
    And nothing in the sandbox should have changed

  Scenario: CopyFile refuses to copy in from outside through a symlink
    Given a skill file ops sandbox directory
    And a directory outside the sandbox holding "secret.txt"
    And a sandbox symlink "escape" pointing to "{outside}"
    When I execute the "skill/file-copy" tool with:
      | from | escape/secret.txt |
      | to   | stolen.txt        |
    Then the skill tool result should not be successful
    And the skill tool error should mention "traversal"
    And nothing in the sandbox should have changed

  Scenario: CopyFile copies out of a read-only root but never into one
    Given a skill file ops sandbox directory
    And a read-only root holding "ro.txt" with content "R"
    When I execute the "skill/file-copy" tool with:
      | from | {readonly}/ro.txt |
      | to   | mine.txt          |
    Then the skill tool result should be successful
    And the sandbox file "mine.txt" should have content "R"
    When I execute the "skill/file-copy" tool with:
      | from | mine.txt            |
      | to   | {readonly}/copy.txt |
    Then the skill tool result should not be successful
    And the skill tool error reason should be "READ_ONLY"
    And nothing in the sandbox should have changed
