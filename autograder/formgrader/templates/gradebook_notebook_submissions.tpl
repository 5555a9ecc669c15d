{#- A copy of nbgrader 0.9.6's gradebook_notebook_submissions.tpl
    (BSD-3-Clause, Copyright (c) 2014 Project Jupyter Contributors) in an autoescaping
    environment, changed only where it puts values inside JavaScript strings (|tojson)
    and loads student_names.js (names as the roster writes them) after nbgrader's script -#}
{#- upstream-copy: nbgrader 0.9.6 nbgrader/server_extensions/formgrader/templates/gradebook_notebook_submissions.tpl sha256:6ba31e53a5cd3c07a420dc6bfdddd7482f0cb239e956551b74e501ce30dd6018 -#}
{%- extends 'gradebook_base.tpl' -%}

{%- block head -%}
<script>
var assignment_id = {{ assignment_id|tojson }};
var notebook_id = {{ notebook_id|tojson }};
</script>

<script src="{{ base_url }}/formgrader/static/js/gradebook_notebook_submissions.js"></script>
<script src="{{ base_url }}/formgrader/course_static/js/student_names.js"></script>
{%- endblock head -%}

{%- block breadcrumbs -%}
<ol class="breadcrumb">
  <li><a href="{{ base_url }}/formgrader/gradebook">Manual Grading</a></li>
  <li><a href="{{ base_url }}/formgrader/gradebook/{{ assignment_id }}">{{ assignment_id }}</a></li>
  <li class="active">{{ notebook_id }}</li>
</ol>
{%- endblock -%}

<!-- Button to toggle all student names -->
{%- block messages -%}
<button id="toggle_names" onclick="toggleAllNames()">Show All Names</button>
{%- endblock -%}

{%- block table_header -%}
<tr>
  <th></th>
  <th>Submission ID</th>
  <th class="text-center">Overall Score</th>
  <th class="text-center">Code Score</th>
  <th class="text-center">Written Score</th>
  <th class="text-center">Task Score</th>
  <th class="text-center">Needs Manual Grade?</th>
  <th class="text-center">Tests Failed?</th>
  <th class="text-center">Flagged?</th>
</tr>
{%- endblock -%}

{%- block table_body -%}
<tr><td colspan="8">Loading, please wait...</td></tr>
{%- endblock -%}
