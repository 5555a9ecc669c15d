{#- A copy of nbgrader 0.9.6's gradebook_notebooks.tpl
    (BSD-3-Clause, Copyright (c) 2014 Project Jupyter Contributors) in an autoescaping
    environment, changed only where it puts values inside JavaScript strings (|tojson)
    -#}
{#- upstream-copy: nbgrader 0.9.6 nbgrader/server_extensions/formgrader/templates/gradebook_notebooks.tpl sha256:82397c92104b1d186119c5d6913f1710cf3466a4804731610031e229adc47b84 -#}
{%- extends 'gradebook_base.tpl' -%}

{%- block head -%}
<script>
var assignment_id = {{ assignment_id|tojson }};
</script>

<script src="{{ base_url }}/formgrader/static/js/gradebook_notebooks.js"></script>
{%- endblock head -%}

{%- block breadcrumbs -%}
<ol class="breadcrumb">
  <li><a href="{{ base_url }}/formgrader/gradebook">Manual Grading</a></li>
  <li class="active">{{ assignment_id }}</li>
</ol>
{%- endblock -%}

{%- block table_header -%}
<tr>
  <th>Notebook ID</th>
  <th class="text-center">Avg. Score</th>
  <th class="text-center">Avg. Code Score</th>
  <th class="text-center">Avg. Written Score</th>
  <th class="text-center">Avg. Task Score</th>
  <th class="text-center">Needs Manual Grade?</th>
</tr>
{%- endblock -%}

{%- block table_body -%}
<tr><td colspan="6">Loading, please wait...</td></tr>
{%- endblock -%}
