Feature: Change history with undo
  As an agent backend
  I want every change a model makes to be recorded with its earlier content
  So that a model's mistake can be listed, restored and undone

  Background:
    Given a skill file ops sandbox directory
    And the server records the change history

  Scenario: Every change is listed, newest first
    When the model calls "file_write" with arguments "{\"path\":\"a.txt\",\"text\":\"one\n\"}"
    And the model calls "file_edit" with arguments "{\"path\":\"a.txt\",\"edits\":[{\"append\":{\"text\":\"two\n\"}}]}"
    Then the history of "a.txt" lists 2 changes

  Scenario: Undo puts back the content before the last change
    When the model calls "file_write" with arguments "{\"path\":\"a.txt\",\"text\":\"one\n\"}"
    And the model calls "file_write" with arguments "{\"path\":\"a.txt\",\"text\":\"oops\n\"}"
    And the model calls "file_undo" with arguments "{\"path\":\"a.txt\"}"
    Then the tool result is not an error
    And the sandbox file "a.txt" contains exactly "one\n"

  Scenario: Undo of a delete brings the file back
    Given a sandbox file "keep.txt" with content "precious\n"
    When the model calls "file_write" with arguments "{\"path\":\"keep.txt\",\"text\":\"precious\n\"}"
    And the model calls "file_delete" with arguments "{\"path\":\"keep.txt\"}"
    And the model calls "file_undo" with arguments "{\"path\":\"keep.txt\"}"
    Then the tool result is not an error
    And the sandbox file "keep.txt" contains exactly "precious\n"

  Scenario: Undo with nothing recorded is refused and changes nothing
    Given a sandbox file "plain.txt" with content "x"
    And I remember the sandbox
    When the model calls "file_undo" with arguments "{\"path\":\"plain.txt\"}"
    Then the tool result is an error with reason "NOT_IN_HISTORY"
    And nothing in the sandbox has changed

  Scenario: Restoring content the history never held is refused
    Given a sandbox file "plain.txt" with content "x"
    And I remember the sandbox
    When the model calls "file_restore" with arguments "{\"path\":\"plain.txt\",\"sha256\":\"0000000000000000000000000000000000000000000000000000000000000000\"}"
    Then the tool result is an error with reason "NOT_IN_HISTORY"
    And nothing in the sandbox has changed
