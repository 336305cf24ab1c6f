Feature: ApplyPatch applies a model's multi-file patch, all or nothing
  As an agent backend whose model writes Codex-style patches
  I want toolhost to apply "*** Begin Patch" text across several files
  So that a failure part-way never leaves the workspace half-changed

  Background:
    Given a skill file ops sandbox directory
    And a sandbox file "app.py" with content "def greet():\n    print('hi')\n"
    And a sandbox file "old.txt" with content "bye\n"

  Scenario: Add, update, move and delete in one patch
    When I apply the patch:
      """
      *** Begin Patch
      *** Add File: docs/new.md
      +# New
      *** Update File: app.py
      *** Move to: main.py
      @@ def greet():
      -    print('hi')
      +    print('hello')
      *** Delete File: old.txt
      *** End Patch
      """
    Then the skill tool result should be successful
    And the sandbox file "docs/new.md" contains exactly "# New\n"
    And the sandbox file "main.py" contains exactly "def greet():\n    print('hello')\n"
    And the sandbox file "app.py" should not exist
    And the sandbox file "old.txt" should not exist

  Scenario: A hunk that does not apply changes nothing, not even the files before it
    Given I remember the sandbox
    When I apply the patch:
      """
      *** Begin Patch
      *** Add File: first.txt
      +first
      *** Update File: app.py
      @@
      -this line is not there
      +x
      *** End Patch
      """
    Then the skill tool result should not be successful
    And the skill tool error reason should be "PATCH_FAILED"
    And the skill tool error should mention 'Hunk 1 of "app.py" does not apply: its lines starting "this line is not there"'
    And nothing in the sandbox has changed

  Scenario: A dry run returns the diff and changes nothing
    Given I remember the sandbox
    When I apply the patch as a dry run:
      """
      *** Begin Patch
      *** Update File: old.txt
      @@
      -bye
      +farewell
      *** Add File: new.txt
      +fresh
      *** End Patch
      """
    Then the skill tool result should be successful
    And the patch is not applied
    And the diff of "old.txt" contains "-bye\n+farewell"
    And the diff of "new.txt" contains "+fresh"
    And nothing in the sandbox has changed

  Scenario: A patch that leaves the roots is refused whole
    Given I remember the sandbox
    When I apply the patch:
      """
      *** Begin Patch
      *** Add File: ok.txt
      +ok
      *** Add File: ../../escape.txt
      +x
      *** End Patch
      """
    Then the skill tool result should not be successful
    And the skill tool error reason should be "PATH_TRAVERSAL"
    And the skill tool error should mention "traversal"
    And nothing in the sandbox has changed

  Scenario: Text that is not a patch is refused with the line
    When I apply the patch:
      """
      *** Begin Patch
      *** Rename File: app.py
      *** End Patch
      """
    Then the skill tool result should not be successful
    And the skill tool error should mention "line 2"

  Scenario: A model's patch through CallTool
    When the model calls "file_apply_patch" with the patch:
      """
      *** Begin Patch
      *** Update File: old.txt
      @@
      -bye
      +farewell
      *** End Patch
      """
    Then the tool result is not an error
    And the sandbox file "old.txt" contains exactly "farewell\n"
